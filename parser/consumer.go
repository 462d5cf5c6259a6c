package parser

import (
	"bytes"
)

// consumerPrefix reads "[Consumer clientId=X, groupId=G] " (1.0+, also with
// instanceId=) and returns the client, group and the rest of the message.
func consumerPrefix(msg []byte) (client, group string, rest []byte) {
	if !bytes.HasPrefix(msg, []byte("[Consumer ")) {
		return "", "", msg
	}
	e := bytes.IndexByte(msg, ']')
	if e < 0 {
		return "", "", msg
	}
	in := msg[len("[Consumer "):e]
	for _, kv := range bytes.Split(in, []byte(", ")) {
		switch {
		case bytes.HasPrefix(kv, []byte("clientId=")):
			client = string(kv[len("clientId="):])
		case bytes.HasPrefix(kv, []byte("groupId=")):
			group = string(kv[len("groupId="):])
		}
	}
	if group == "null" {
		group = ""
	}
	rest = msg[e+1:]
	if len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	return client, group, rest
}

// coordinatorBroker turns the coordinator node id a consumer prints
// (Integer.MAX_VALUE - brokerId, client.md §4.3) back into the broker id.
func coordinatorBroker(s []byte) int32 {
	v, ok := intAfter(s, "(id: ")
	if !ok {
		return Unknown
	}
	if v > 1<<30 {
		return int32(int64(1<<31-1) - v)
	}
	return int32(v)
}

// consumer: Java consumer and Spring Kafka container lines (client.md §6).
func (p *Parser) consumer() bool {
	r := &p.rec
	client, group, s := consumerPrefix(r.Msg)
	kind := ConsNone
	switch {
	case bytes.HasPrefix(s, []byte("Discovered group coordinator ")), bytes.HasPrefix(s, []byte("Discovered coordinator ")):
		kind = ConsCoordinatorDiscovered
	case bytes.HasPrefix(s, []byte("Marking the coordinator ")), bytes.HasPrefix(s, []byte("Group coordinator ")) && bytes.Contains(s, []byte("unavailable or invalid")):
		kind = ConsCoordinatorDead
	case bytes.HasPrefix(s, []byte("(Re-)joining group")):
		kind = ConsJoin
	case bytes.HasPrefix(s, []byte("Successfully joined group")):
		kind = ConsJoined
	case bytes.HasPrefix(s, []byte("Revoking previously assigned partitions")), bytes.HasPrefix(s, []byte("Revoke previously assigned partitions")),
		bytes.HasPrefix(s, []byte("Lost previously assigned partitions")), bytes.Contains(s, []byte("partitions revoked: ")):
		kind = ConsRevoke
	case bytes.HasPrefix(s, []byte("Setting newly assigned partitions")), bytes.HasPrefix(s, []byte("Adding newly assigned partitions")),
		bytes.Contains(s, []byte("partitions assigned: ")):
		kind = ConsAssign
	case bytes.Contains(s, []byte("consumer poll timeout has expired")):
		kind = ConsPollTimeout
	case bytes.HasPrefix(s, []byte("Offset commit failed")), bytes.Contains(s, []byte("auto-commit of offsets")) && bytes.Contains(s, []byte("failed")),
		bytes.HasPrefix(s, []byte("Offset commit with offsets")) && bytes.Contains(s, []byte("failed")),
		bytes.Contains(s, []byte("failed to commit partition")):
		kind = ConsCommitFailed
	case bytes.HasPrefix(s, []byte("Error in fetch for partition ")):
		kind = ConsFetchError
	default:
		return true
	}
	p.noteClient(client)
	ev := p.start(KindConsumer)
	ev.Consumer = kind
	ev.ClientID = client
	ev.GroupID = group
	if group == "" {
		// 0.10–0.11: "... for group G" / "Marking the coordinator X dead for group G".
		if g, ok := tokenAfter(s, "for group "); ok {
			ev.GroupID = string(bytes.TrimRight(g, ".:"))
		} else if i := bytes.Index(s, []byte(": partitions ")); i > 0 && bytes.IndexByte(s[:i], ' ') < 0 {
			// Spring Kafka 2.3+: "G: partitions assigned: [...]".
			ev.GroupID = string(s[:i])
		}
	}
	if kind == ConsCoordinatorDiscovered || kind == ConsCoordinatorDead {
		ev.Broker = coordinatorBroker(s)
	}
	if kind == ConsFetchError {
		if t, part, ok := p.partitionAfter(s, "for partition "); ok {
			ev.Topic, ev.Partition = t, part
		}
		ev.Error = errorName(s)
	}
	if len(s) > 200 {
		s = s[:200]
	}
	ev.Text = string(s)
	p.send()
	return true
}
