package report

import "github.com/leaderaudit/leaderaudit/timeline"

// AsyncSink hands what a timeline finishes to next on a goroutine of its
// own, in the order the timeline finished it. The audit's merge, timeline
// and report all ran on one goroutine, and the report's part (verdicts,
// the JSON lines) is a third of it: with it beside the merge, two cores
// share the serial work. The timeline holds nothing it has handed on (an
// episode leaves its maps and match index before it goes), so next may
// read it while the timeline goes on. Close hands on the rest and waits;
// next's state may be read after it.
type AsyncSink struct {
	next timeline.Sink
	ch   chan []finished
	buf  []finished
	done chan struct{}
}

// finished is one of what the timeline hands on.
type finished struct {
	e  *timeline.Episode
	pe *timeline.ProducerError
	b  *timeline.Burst
}

// asyncBatch: finished things sent at a time (a channel send per episode
// would cost what the goroutine saves); asyncDepth: batches waiting.
const (
	asyncBatch = 64
	asyncDepth = 4
)

// NewAsyncSink starts the goroutine that feeds next.
func NewAsyncSink(next timeline.Sink) *AsyncSink {
	s := &AsyncSink{next: next, ch: make(chan []finished, asyncDepth), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for b := range s.ch {
			for _, f := range b {
				switch {
				case f.e != nil:
					next.Episode(f.e)
				case f.pe != nil:
					next.ProducerError(f.pe)
				default:
					next.Burst(f.b)
				}
			}
		}
	}()
	return s
}

func (s *AsyncSink) add(f finished) {
	s.buf = append(s.buf, f)
	if len(s.buf) >= asyncBatch {
		s.ch <- s.buf
		s.buf = make([]finished, 0, asyncBatch)
	}
}

func (s *AsyncSink) Episode(e *timeline.Episode)              { s.add(finished{e: e}) }
func (s *AsyncSink) ProducerError(pe *timeline.ProducerError) { s.add(finished{pe: pe}) }
func (s *AsyncSink) Burst(b *timeline.Burst)                  { s.add(finished{b: b}) }

// Close hands on what is left and waits until next has taken it all.
func (s *AsyncSink) Close() {
	if len(s.buf) > 0 {
		s.ch <- s.buf
		s.buf = nil
	}
	close(s.ch)
	<-s.done
}
