package parser

import (
	"slices"
	"time"
)

// PieceKind says what part of one failed send a producer-error line is.
// A Java producer logs one failed produce response as up to two records
// (Sender.completeBatch: "Got error produce response … retrying" or the
// callback's ERROR when the batch is given up, then "Received invalid
// metadata error … on partition T-P" for the same response); the assembler
// joins them into one event per client event.
type PieceKind uint8

const (
	// PieceWhole: a complete client event by itself.
	PieceWhole PieceKind = iota
	// PieceAttempt: a failed attempt the client retries.
	PieceAttempt
	// PieceFinal: the batch was given up (a callback, a listener, an
	// expiry); Partition is Unknown when the line names only the topic.
	PieceFinal
	// PieceDetailOrFinal: the detail of the attempt or final failure just
	// logged for the same client and partition; alone, the batch's failure
	// (Sender fails the batch, then logs the invalid-metadata line).
	PieceDetailOrFinal
	// PieceDetailOrRetry: the same, but alone a retried attempt.
	PieceDetailOrRetry
)

// AssemblyWindow is how long, in log time, a piece waits for the other
// line of its response. The two lines of one response are logged by one
// thread one after the other (15 ms apart at most in the logs we have);
// the window bounds what is held, not what pairs: pairing is by order.
const AssemblyWindow = 400 * time.Millisecond

// maxAssembly bounds the events held behind an open piece.
const maxAssembly = 4096

// exhaustWindow: how far back a batch whose retries ran out can still be
// the one a topic-only final failure reports (delivery.timeout.ms default).
const exhaustWindow = 2 * time.Minute

// maxExhausted bounds the exhausted batches remembered per topic, and
// maxExhaustedTopics the topics.
const (
	maxExhausted       = 64
	maxExhaustedTopics = 4096
)

type asmEntry struct {
	ev       Event
	producer bool // a producer error that may still take a piece
	open     bool // waiting for its other line
	// awaitFinal: a detail that became the batch's failure by itself; a
	// topic-only callback for it may still follow (an application logger
	// on another thread).
	awaitFinal bool
	detailed   bool
	topicOnly  bool
	deadline   time.Time
}

// exhausted is a batch whose retries ran out ("0 attempts left"): the
// next failure of it is final.
type exhausted struct {
	client    string
	partition int32
	t         time.Time
	// claim: 0 free, 1 claimed by a final that named it, 2 claimed by a
	// final that could not tell it from others (still a candidate).
	claim uint8
}

// assembler joins the pieces of one client event. Every event of the
// parser passes through its queue while a piece is held, so the source's
// events keep their order.
type assembler struct {
	q    []asmEntry
	head int
	exh  map[string][]exhausted // by topic
	// backoff: retry.backoff.ms by client.id from the source's config
	// blocks; blocks counts them (one block: every client of the source).
	backoff map[string]time.Duration
	blocks  int
	sole    time.Duration
}

func (a *assembler) noteBackoff(client string, d time.Duration) {
	if a.backoff == nil {
		a.backoff = map[string]time.Duration{}
	}
	if len(a.backoff) < 64 {
		a.backoff[client] = d
	}
	a.blocks++
	a.sole = d
}

// minGap is the least time between a batch's last retried attempt and its
// final failure: the resend waits retry.backoff.ms (3.7+: with up to 20%
// jitter below it). Zero when the client's setting is not known.
func (a *assembler) minGap(client string) time.Duration {
	d, ok := a.backoff[client]
	if !ok {
		if a.blocks != 1 {
			return 0
		}
		d = a.sole
	}
	return d * 8 / 10
}

// holding: a may be nil, a source with no producer error yet.
func (a *assembler) holding() bool { return a != nil && a.head < len(a.q) }

// oldest is the time of the first held event.
func (a *assembler) oldest() (time.Time, bool) {
	if !a.holding() {
		return time.Time{}, false
	}
	return a.q[a.head].ev.Time, true
}

// push takes an event the parser produced (p.ev).
func (p *Parser) push(ev *Event) {
	a := p.assembler()
	a.advance(p, ev.Time)
	if ev.Kind != KindProducerError || ev.Broker != Unknown {
		// Broker-side errors ("Leader not local") are one line each.
		if !a.holding() {
			p.out(ev)
			return
		}
		a.q = append(a.q, asmEntry{ev: *ev})
		a.cap(p)
		return
	}
	e := asmEntry{ev: *ev, producer: true, deadline: ev.Time.Add(AssemblyWindow)}
	// Lines stays nil for a one-line event (it is Line alone): no
	// allocation for the usual case.
	piece := ev.Piece
	e.ev.Piece = PieceWhole
	switch piece {
	case PieceWhole:
	case PieceAttempt:
		e.ev.Final = false
		a.closeKey(ev)
		e.open = true
		if ev.AttemptsLeft == 0 && ev.Topic != "" && ev.Partition != Unknown {
			a.noteExhausted(ev)
		}
	case PieceFinal:
		e.ev.Final = true
		e.topicOnly = ev.Partition == Unknown
		if i := a.findAwaitFinal(ev); i >= 0 {
			// The callback of a failure its detail line already reported.
			x := &a.q[i]
			x.ev.Lines = joinLines(x.ev.Lines, x.ev.Line, e.ev.Lines, ev.Line)
			if x.ev.ClientID == "" {
				x.ev.ClientID = ev.ClientID
			}
			x.awaitFinal, x.open = false, false
			a.release(p)
			return
		}
		a.closeKey(ev)
		e.open = true
	case PieceDetailOrFinal, PieceDetailOrRetry:
		if i := a.findOpen(ev); i >= 0 {
			x := &a.q[i]
			x.ev.Lines = joinLines(x.ev.Lines, x.ev.Line, e.ev.Lines, ev.Line)
			if x.ev.Topic == "" {
				x.ev.Topic = ev.Topic
			}
			if x.ev.Partition == Unknown {
				x.ev.Partition = ev.Partition
			}
			if x.ev.Error == "" {
				x.ev.Error = ev.Error
			}
			if x.ev.ClientID == "" {
				x.ev.ClientID = ev.ClientID
			}
			if x.ev.CorrelationID < 0 {
				x.ev.CorrelationID = ev.CorrelationID
			}
			x.detailed, x.open = true, false
			a.release(p)
			return
		}
		e.ev.Final = piece == PieceDetailOrFinal
		if e.ev.Final {
			e.open, e.awaitFinal = true, true
		}
	}
	a.q = append(a.q, e)
	a.cap(p)
	a.release(p)
}

// joinLines appends a piece's lines (or its one line) to an event's.
func joinLines(have []int64, line int64, add []int64, addLine int64) []int64 {
	if have == nil {
		have = append(make([]int64, 0, 2+len(add)), line)
	}
	if add == nil {
		return append(have, addLine)
	}
	return append(have, add...)
}

// sameClient: a line that names no client (a Logback console layout that
// cut the network thread's name) joins a line that does.
func sameClient(a, b string) bool { return a == b || a == "" || b == "" }

// closeKey: a new attempt or final for a key ends the previous one's wait
// (the next line for that client and partition is not its detail).
func (a *assembler) closeKey(ev *Event) {
	for i := len(a.q) - 1; i >= a.head; i-- {
		x := &a.q[i]
		if x.open && !x.awaitFinal && x.ev.ClientID == ev.ClientID && x.ev.Topic == ev.Topic && x.ev.Partition == ev.Partition {
			x.open = false
			return
		}
	}
}

// findOpen returns the newest held piece a detail line belongs to, or -1.
func (a *assembler) findOpen(ev *Event) int {
	for i := len(a.q) - 1; i >= a.head; i-- {
		x := &a.q[i]
		if !x.producer || !sameClient(x.ev.ClientID, ev.ClientID) {
			continue
		}
		if x.ev.CorrelationID >= 0 && ev.CorrelationID >= 0 {
			if x.ev.CorrelationID != ev.CorrelationID || (x.ev.Conn != "" && ev.Conn != "" && x.ev.Conn != ev.Conn) {
				continue
			}
			if x.open && !x.awaitFinal && compatible(x, ev) {
				return i
			}
			continue
		}
		if ev.Topic == "" || x.ev.Topic != ev.Topic {
			continue
		}
		if x.ev.Partition != ev.Partition && !x.topicOnly {
			continue
		}
		if x.topicOnly && x.ev.Partition != Unknown && x.ev.Partition != ev.Partition {
			continue
		}
		if x.open && !x.awaitFinal {
			return i
		}
		if x.ev.Partition == ev.Partition {
			// The newest line for this client and partition already has
			// its detail (or never waited for one): this one is new.
			return -1
		}
	}
	return -1
}

// compatible: topic and partition agree where both pieces name them.
func compatible(x *asmEntry, ev *Event) bool {
	if x.ev.Topic != "" && ev.Topic != "" && x.ev.Topic != ev.Topic {
		return false
	}
	return x.ev.Partition == Unknown || ev.Partition == Unknown || x.ev.Partition == ev.Partition
}

// findAwaitFinal returns a detail-made final failure a callback line for
// the same client and topic (and partition, where it names one) belongs to.
func (a *assembler) findAwaitFinal(ev *Event) int {
	for i := len(a.q) - 1; i >= a.head; i-- {
		x := &a.q[i]
		if x.awaitFinal && sameClient(x.ev.ClientID, ev.ClientID) && x.ev.Topic == ev.Topic &&
			(ev.Partition == Unknown || ev.Partition == x.ev.Partition) {
			return i
		}
	}
	return -1
}

// advance closes held pieces whose window has passed at log time now.
func (a *assembler) advance(p *Parser, now time.Time) {
	if !a.holding() {
		return
	}
	// Deadlines follow the pieces' (time-ordered) lines: stop at the
	// first that has not passed.
	for i := a.head; i < len(a.q); i++ {
		x := &a.q[i]
		if !x.open {
			continue
		}
		if !now.After(x.deadline) {
			break
		}
		x.open, x.awaitFinal = false, false
	}
	a.release(p)
}

// cap releases the oldest held events when too many wait.
func (a *assembler) cap(p *Parser) {
	for len(a.q)-a.head > maxAssembly {
		a.q[a.head].open = false
		a.release(p)
	}
}

// release hands over the held events up to the first open piece.
func (a *assembler) release(p *Parser) {
	for a.head < len(a.q) && !a.q[a.head].open {
		x := &a.q[a.head]
		if x.producer {
			a.finish(x)
		}
		p.out(&x.ev)
		a.q[a.head] = asmEntry{}
		a.head++
	}
	if a.head == len(a.q) {
		a.q, a.head = a.q[:0], 0
	} else if a.head >= 64 && a.head*2 >= len(a.q) {
		n := copy(a.q, a.q[a.head:])
		clear(a.q[n:])
		a.q, a.head = a.q[:n], 0
	}
}

// assembler is p.asm, made if need be.
func (p *Parser) assembler() *assembler {
	if p.asm == nil {
		p.asm = new(assembler)
	}
	return p.asm
}

// flush closes and hands over everything held.
func (a *assembler) flush(p *Parser) {
	if a == nil {
		return
	}
	for i := a.head; i < len(a.q); i++ {
		a.q[i].open, a.q[i].awaitFinal = false, false
	}
	a.release(p)
}

func (a *assembler) noteExhausted(ev *Event) {
	if a.exh == nil {
		a.exh = map[string][]exhausted{}
	}
	if len(a.exh) >= maxExhaustedTopics {
		for k, l := range a.exh {
			if l = prune(l, ev.Time); len(l) == 0 {
				delete(a.exh, k)
			} else {
				a.exh[k] = l
			}
		}
		if len(a.exh) >= maxExhaustedTopics {
			clear(a.exh)
		}
	}
	l := prune(a.exh[ev.Topic], ev.Time)
	if len(l) >= maxExhausted {
		l = append(l[:0], l[1:]...)
	}
	a.exh[ev.Topic] = append(l, exhausted{client: ev.ClientID, partition: ev.Partition, t: ev.Time})
}

func prune(l []exhausted, now time.Time) []exhausted {
	n := 0
	for _, x := range l {
		if x.claim != 1 && now.Sub(x.t) <= exhaustWindow {
			l[n] = x
			n++
		}
	}
	return l[:n]
}

// finish settles a final failure's partition by sequence: the batch of
// that client and topic whose retries ran out before it.
func (a *assembler) finish(x *asmEntry) {
	ev := &x.ev
	if !ev.Final || ev.Topic == "" || a.exh == nil {
		return
	}
	k := ev.Topic
	l := a.exh[k]
	if len(l) == 0 {
		return
	}
	l = prune(l, ev.Time)
	a.exh[k] = l
	if ev.Partition != Unknown {
		for i := range l {
			if l[i].partition == ev.Partition && l[i].claim == 0 && !l[i].t.After(ev.Time) && sameClient(l[i].client, ev.ClientID) {
				l[i].claim = 1
				a.exh[k] = prune(l, ev.Time)
				return
			}
		}
		return
	}
	var cands []int32
	first, free, guessed := -1, 0, false
	for i := range l {
		if l[i].t.After(ev.Time) || !sameClient(l[i].client, ev.ClientID) {
			continue
		}
		if ev.Time.Sub(l[i].t) < a.minGap(l[i].client) {
			// Its resend had not gone out yet: not this failure.
			continue
		}
		if l[i].claim == 0 {
			free++
			if first < 0 {
				first = i
			}
		} else {
			guessed = true
		}
		if !slices.Contains(cands, l[i].partition) {
			cands = append(cands, l[i].partition)
		}
	}
	if first < 0 {
		return
	}
	if free == 1 && !guessed || len(cands) == 1 {
		ev.Partition = l[first].partition
		if ev.ClientID == "" {
			ev.ClientID = l[first].client
		}
		l[first].claim = 1
		a.exh[k] = prune(l, ev.Time)
		return
	}
	// Several batches ran out: one of them failed here, the lines do not
	// say which. The oldest is taken off the list (one failure per
	// batch) but stays a candidate of the next failure.
	slices.Sort(cands)
	ev.Candidates = cands
	l[first].claim = 2
}
