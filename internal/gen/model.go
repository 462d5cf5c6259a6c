package gen

import (
	"strconv"
)

// topic is one Kafka topic.
type topic struct {
	name  string
	id    string // KRaft / 2.8+ topic id (22-char base64url)
	parts []*part
}

// part is the controller's (true) view of one partition.
type part struct {
	t        *topic
	idx      int32
	name     string  // "t-p" (TopicPartition.toString)
	bname    string  // "[t,p]" (TopicAndPartition.toString in 0.x)
	gidx     int     // index in cluster.parts
	replicas []int32 // assignment; replicas[0] is the preferred leader

	leader int32
	epoch  int32
	isr    []int32
	zkv    int32 // ZK zkVersion / KRaft partition epoch
	cep    int32 // ZK: epoch of the controller that last wrote leader/ISR

	rate  float64 // messages per ms
	lastT int64   // time of the last offset update

	leo     int64 // log end offset on the leader
	hw      int64 // high watermark
	prevLEO int64 // deposed leader's log end offset at the last leader change

	elections []*Election // truth, in order
}

func (p *part) inISR(b int32) bool {
	for _, x := range p.isr {
		if x == b {
			return true
		}
	}
	return false
}

func (p *part) isReplica(b int32) bool {
	for _, x := range p.replicas {
		if x == b {
			return true
		}
	}
	return false
}

// localView is what one broker believes about one partition.
type localView struct {
	known  bool
	leader int32
	epoch  int32
	leo    int64
}

type broker struct {
	id    int32
	alive bool
	// times (ms) bounding the current life of the process, for noise
	upAt   int64
	downAt int64 // math.MaxInt64 while running
	// ZK controller -> broker channel correlation id (per destination broker)
	corr int32
	// broker's own view of partitions (indexed by part.gidx)
	local []localView
	// fetcher thread ids used in prefixes
	host         string
	epochZK      int64 // czxid (broker epoch) in ZK mode
	kraftEpoch   int64
	incarnation  string
	shuttingDown bool
	busy         int64 // request channel busy until (ms)

	sc, ctl, srv *sink // state-change.log, controller.log, server.log
}

func (b *broker) resetLocal() {
	for i := range b.local {
		b.local[i] = localView{leader: -1, epoch: -1}
	}
}

// appendInts renders ids joined by sep, e.g. "1,2,3" or "1, 2, 3".
func appendInts(b []byte, xs []int32, sep string) []byte {
	for i, x := range xs {
		if i > 0 {
			b = append(b, sep...)
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return b
}

func without(xs []int32, v int32) []int32 {
	out := make([]int32, 0, len(xs))
	for _, x := range xs {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func containsID(xs []int32, v int32) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

func cloneIDs(xs []int32) []int32 { return append([]int32(nil), xs...) }
