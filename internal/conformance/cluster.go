// Package conformance drives real Kafka client libraries against an
// in-process Kafka (kfake: the real wire protocol) while partition leaders
// move, and checks that leaderaudit's parser turns every NOT_LEADER
// response the cluster sent into exactly one producer error of that client.
//
// The truth is read off the brokers' connections, not from kfake's
// internals: each accepted connection is tapped, the requests' headers
// give each correlation id its API key and version, and every Produce
// response is decoded to find the partitions it answered with
// NOT_LEADER_FOR_PARTITION (code 6).
package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// NotLeader is one partition that one Produce response refused with
// NOT_LEADER_FOR_PARTITION.
type NotLeader struct {
	Broker        int32
	CorrelationID int32
	ClientID      string
	Topic         string
	Partition     int32
	Time          time.Time
}

// Cluster is a kfake cluster whose connections are tapped for the truth.
type Cluster struct {
	*kfake.Cluster
	Topic      string
	Partitions int32
	Brokers    int32

	mu        sync.Mutex
	ports     map[int]int32 // listener port → broker, filled after start
	notLeader []NotLeader
	// requests: per broker and correlation id, the Produce request's
	// partitions (kafkajs names none in its lines: the suite pairs them).
	requests map[reqKey][]TP
}

// TP is a topic-partition.
type TP struct {
	Topic     string
	Partition int32
}

type reqKey struct {
	broker int32
	corr   int32
	conn   int
}

// NewCluster starts brokers brokers with one topic of partitions partitions,
// speaking the API versions of vs (nil: Kafka 3.9's; from Produce v13, in
// 4.x, the wire names topics by id, which the tap does not resolve).
func NewCluster(brokers int, topic string, partitions int32, vs *kversion.Versions) (*Cluster, error) {
	if vs == nil {
		vs = kversion.V3_9_0()
	}
	c := &Cluster{Topic: topic, Partitions: partitions, Brokers: int32(brokers), ports: map[int]int32{}, requests: map[reqKey][]TP{}}
	var lns []*tapListener
	kc, err := kfake.NewCluster(
		kfake.NumBrokers(brokers),
		kfake.SeedTopics(partitions, topic),
		kfake.MaxVersions(vs),
		kfake.ListenFn(func(network, addr string) (net.Listener, error) {
			ln, err := net.Listen(network, addr)
			if err != nil {
				return nil, err
			}
			t := &tapListener{Listener: ln, c: c}
			lns = append(lns, t)
			return t, nil
		}),
	)
	if err != nil {
		return nil, err
	}
	c.Cluster = kc
	// kfake numbers its brokers 0..n-1 in the order of ListenAddrs.
	c.mu.Lock()
	for i, a := range kc.ListenAddrs() {
		_, p, _ := net.SplitHostPort(a)
		port, _ := strconv.Atoi(p)
		c.ports[port] = int32(i)
	}
	c.mu.Unlock()
	return c, nil
}

// NotLeaders returns the NOT_LEADER responses seen so far.
func (c *Cluster) NotLeaders() []NotLeader {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]NotLeader(nil), c.notLeader...)
}

// Request returns the partitions of the Produce request a broker got
// with a correlation id (the last such request, across connections).
func (c *Cluster) Request(broker, corr int32) []TP {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best []TP
	bestConn := -1
	for k, v := range c.requests {
		if k.broker == broker && k.corr == corr && k.conn > bestConn {
			best, bestConn = v, k.conn
		}
	}
	return best
}

// Mover moves leaders while a client produces: every interval one
// partition moves to another broker, every shuffleEvery-th time all
// partitions get a random leader (kfake bumps each epoch). It stops after
// n moves or when stop closes.
func (c *Cluster) Mover(seed int64, n int, interval time.Duration, shuffleEvery int, stop <-chan struct{}) error {
	rng := rand.New(rand.NewSource(seed))
	for i := 1; i <= n; i++ {
		select {
		case <-stop:
			return nil
		case <-time.After(interval):
		}
		if shuffleEvery > 0 && i%shuffleEvery == 0 {
			c.ShufflePartitionLeaders()
			continue
		}
		p := rng.Int31n(c.Partitions)
		cur := c.LeaderFor(c.Topic, p)
		to := (cur + 1 + rng.Int31n(c.Brokers-1)) % c.Brokers
		if err := c.MoveTopicPartition(c.Topic, p, to); err != nil {
			return err
		}
	}
	return nil
}

type tapListener struct {
	net.Listener
	c *Cluster
	n int
}

var connSeq struct {
	sync.Mutex
	n int
}

func (l *tapListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	_, p, _ := net.SplitHostPort(l.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	connSeq.Lock()
	connSeq.n++
	id := connSeq.n
	connSeq.Unlock()
	t := &tapConn{Conn: conn, c: l.c, port: port, id: id, inflight: map[int32]hdr{}}
	return t, nil
}

// tapConn sees the bytes the broker reads (requests) and writes
// (responses) and decodes them as two Kafka frame streams.
type tapConn struct {
	net.Conn
	c    *Cluster
	port int
	id   int

	mu       sync.Mutex
	in, out  []byte
	inflight map[int32]hdr
	bad      bool
}

type hdr struct {
	key, version int16
	clientID     string
}

func (t *tapConn) Read(b []byte) (int, error) {
	n, err := t.Conn.Read(b)
	if n > 0 {
		t.mu.Lock()
		t.in = append(t.in, b[:n]...)
		t.drainRequests()
		t.mu.Unlock()
	}
	return n, err
}

func (t *tapConn) Write(b []byte) (int, error) {
	// Decode before the client can see the bytes, so that the truth is
	// complete once the client has its answer.
	t.mu.Lock()
	t.out = append(t.out, b...)
	t.drainResponses()
	t.mu.Unlock()
	return t.Conn.Write(b)
}

func frame(buf []byte) (body, rest []byte, ok bool) {
	if len(buf) < 4 {
		return nil, buf, false
	}
	n := int(binary.BigEndian.Uint32(buf))
	if len(buf) < 4+n {
		return nil, buf, false
	}
	return buf[4 : 4+n], buf[4+n:], true
}

func (t *tapConn) broker() int32 {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if b, ok := t.c.ports[t.port]; ok {
		return b
	}
	return -1
}

func (t *tapConn) drainRequests() {
	for !t.bad {
		body, rest, ok := frame(t.in)
		if !ok {
			return
		}
		t.in = append(t.in[:0], rest...)
		if len(body) < 10 {
			t.bad = true
			return
		}
		h := hdr{key: int16(binary.BigEndian.Uint16(body)), version: int16(binary.BigEndian.Uint16(body[2:]))}
		corr := int32(binary.BigEndian.Uint32(body[4:]))
		idLen := int(int16(binary.BigEndian.Uint16(body[8:])))
		off := 10
		if idLen > 0 && off+idLen <= len(body) {
			h.clientID = string(body[off : off+idLen])
			off += idLen
		}
		t.inflight[corr] = h
		if h.key != int16(kmsg.Produce) {
			continue
		}
		req := kmsg.NewPtrProduceRequest()
		req.Version = h.version
		b := body[off:]
		if req.IsFlexible() {
			var err error
			if b, err = skipTags(b); err != nil {
				continue
			}
		}
		if err := req.ReadFrom(b); err != nil {
			continue
		}
		var tps []TP
		for _, rt := range req.Topics {
			for _, rp := range rt.Partitions {
				tps = append(tps, TP{rt.Topic, rp.Partition})
			}
		}
		br := t.broker()
		t.c.mu.Lock()
		t.c.requests[reqKey{br, corr, t.id}] = tps
		t.c.mu.Unlock()
	}
}

func (t *tapConn) drainResponses() {
	for !t.bad {
		body, rest, ok := frame(t.out)
		if !ok {
			return
		}
		t.out = append(t.out[:0], rest...)
		if len(body) < 4 {
			t.bad = true
			return
		}
		corr := int32(binary.BigEndian.Uint32(body))
		h, ok := t.inflight[corr]
		if !ok {
			continue
		}
		delete(t.inflight, corr)
		if h.key != int16(kmsg.Produce) {
			continue
		}
		resp := kmsg.NewPtrProduceResponse()
		resp.Version = h.version
		b := body[4:]
		if resp.IsFlexible() {
			var err error
			if b, err = skipTags(b); err != nil {
				continue
			}
		}
		if err := resp.ReadFrom(b); err != nil {
			continue
		}
		br := t.broker()
		now := time.Now()
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				if rp.ErrorCode != 6 {
					continue
				}
				t.c.mu.Lock()
				t.c.notLeader = append(t.c.notLeader, NotLeader{br, corr, h.clientID, rt.Topic, rp.Partition, now})
				t.c.mu.Unlock()
			}
		}
	}
}

// skipTags skips a flexible header's tagged fields.
func skipTags(b []byte) ([]byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errors.New("bad tag count")
	}
	b = b[k:]
	for i := uint64(0); i < n; i++ {
		_, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errors.New("bad tag")
		}
		b = b[k:]
		sz, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < sz {
			return nil, errors.New("bad tag size")
		}
		b = b[k+int(sz):]
	}
	return b, nil
}

// String is for test failure messages.
func (n NotLeader) String() string {
	return fmt.Sprintf("broker %d corr %d %s %s-%d", n.Broker, n.CorrelationID, n.ClientID, n.Topic, n.Partition)
}

var _ io.Writer = (*tapConn)(nil)
