package kraft

import (
	"errors"
	"fmt"
	"strconv"
)

// The typed values a Record carries in its Value field. Field names follow
// Kafka's message schemas (metadata/src/main/resources/common/metadata/*.json
// and clients/src/main/resources/common/message/*.json); the json tags are the
// snake_case names Fields and Dump use. Optional (tagged, nullable) fields are
// nil when the record did not carry them.

// RegisterBrokerRecord (apiKey 0, versions 0-3) registers a broker incarnation.
type RegisterBrokerRecord struct {
	BrokerID             int32            `json:"broker_id"`
	IsMigratingZkBroker  bool             `json:"is_migrating_zk_broker"`
	IncarnationID        UUID             `json:"incarnation_id"`
	BrokerEpoch          int64            `json:"broker_epoch"`
	EndPoints            []Endpoint       `json:"end_points"`
	Features             []FeatureVersion `json:"features"`
	Rack                 *string          `json:"rack"`
	Fenced               bool             `json:"fenced"`
	InControlledShutdown bool             `json:"in_controlled_shutdown"`
	LogDirs              []UUID           `json:"log_dirs,omitempty"`
}

// Endpoint is a listener of a broker, controller or voter.
type Endpoint struct {
	Name             string `json:"name"`
	Host             string `json:"host"`
	Port             uint16 `json:"port"`
	SecurityProtocol int16  `json:"security_protocol"`
}

// FeatureVersion is a supported feature range of a broker or controller.
type FeatureVersion struct {
	Name                string `json:"name"`
	MinSupportedVersion int16  `json:"min_supported_version"`
	MaxSupportedVersion int16  `json:"max_supported_version"`
}

// UnregisterBrokerRecord (apiKey 1) removes a broker registration.
type UnregisterBrokerRecord struct {
	BrokerID    int32 `json:"broker_id"`
	BrokerEpoch int64 `json:"broker_epoch"`
}

// TopicRecord (apiKey 2) creates a topic.
type TopicRecord struct {
	Name    string `json:"name"`
	TopicID UUID   `json:"topic_id"`
}

// PartitionRecord (apiKey 3, versions 0-2) is the full state of a partition,
// written when it is created and in snapshots.
type PartitionRecord struct {
	PartitionID         int32   `json:"partition_id"`
	TopicID             UUID    `json:"topic_id"`
	Replicas            []int32 `json:"replicas"`
	ISR                 []int32 `json:"isr"`
	RemovingReplicas    []int32 `json:"removing_replicas"`
	AddingReplicas      []int32 `json:"adding_replicas"`
	Leader              int32   `json:"leader"`
	LeaderRecoveryState int8    `json:"leader_recovery_state"`
	LeaderEpoch         int32   `json:"leader_epoch"`
	PartitionEpoch      int32   `json:"partition_epoch"`
	Directories         []UUID  `json:"directories,omitempty"`
	ELR                 []int32 `json:"eligible_leader_replicas,omitempty"`
	LastKnownELR        []int32 `json:"last_known_elr,omitempty"`
}

// ConfigRecord (apiKey 4) sets (Value non-nil) or deletes a config.
type ConfigRecord struct {
	ResourceType int8    `json:"resource_type"`
	ResourceName string  `json:"resource_name"`
	Name         string  `json:"name"`
	Value        *string `json:"value"`
}

// Values of PartitionChangeRecord.Leader and LeaderRecoveryState.
const (
	LeaderUnchanged          int32 = -2 // the record does not change the leader
	NoLeader                 int32 = -1 // the partition has no leader
	LeaderRecoveryUnchanged  int8  = -1 // the record does not change it
	LeaderRecoveryRecovered  int8  = 0  // elected from the ISR, or recovered
	LeaderRecoveryRecovering int8  = 1  // elected uncleanly, still recovering
)

// PartitionChangeRecord (apiKey 5, versions 0-2) changes a partition. Every
// field but PartitionID and TopicID is optional: nil slices and the
// *Unchanged values mean "no change".
type PartitionChangeRecord struct {
	PartitionID         int32   `json:"partition_id"`
	TopicID             UUID    `json:"topic_id"`
	ISR                 []int32 `json:"isr,omitempty"`
	Leader              int32   `json:"leader"`
	Replicas            []int32 `json:"replicas,omitempty"`
	RemovingReplicas    []int32 `json:"removing_replicas,omitempty"`
	AddingReplicas      []int32 `json:"adding_replicas,omitempty"`
	LeaderRecoveryState int8    `json:"leader_recovery_state"`
	Directories         []UUID  `json:"directories,omitempty"`
	ELR                 []int32 `json:"eligible_leader_replicas,omitempty"`
	LastKnownELR        []int32 `json:"last_known_elr,omitempty"`
	// HasLeader is true when the record carried the Leader tagged field
	// (tag 1), even if its value is -2.
	HasLeader bool `json:"-"`
}

// FenceBrokerRecord (apiKey 7, before MV 3.3-IV2) fences a broker.
type FenceBrokerRecord struct {
	ID    int32 `json:"id"`
	Epoch int64 `json:"epoch"`
}

// UnfenceBrokerRecord (apiKey 8, before MV 3.3-IV2) unfences a broker.
type UnfenceBrokerRecord struct {
	ID    int32 `json:"id"`
	Epoch int64 `json:"epoch"`
}

// RemoveTopicRecord (apiKey 9) deletes a topic and its partitions.
type RemoveTopicRecord struct {
	TopicID UUID `json:"topic_id"`
}

// FeatureLevelRecord (apiKey 12) finalizes a feature level.
type FeatureLevelRecord struct {
	Name         string `json:"name"`
	FeatureLevel int16  `json:"feature_level"`
}

// ProducerIdsRecord (apiKey 15) allocates a producer id block.
type ProducerIdsRecord struct {
	BrokerID       int32 `json:"broker_id"`
	BrokerEpoch    int64 `json:"broker_epoch"`
	NextProducerID int64 `json:"next_producer_id"`
}

// BrokerRegistrationChangeRecord (apiKey 17, versions 0-2) changes a broker's
// fencing or controlled-shutdown state (from MV 3.3-IV2 on).
type BrokerRegistrationChangeRecord struct {
	BrokerID    int32 `json:"broker_id"`
	BrokerEpoch int64 `json:"broker_epoch"`
	// Fenced: 1 fenced, -1 unfenced, 0 no change.
	Fenced int8 `json:"fenced"`
	// InControlledShutdown: 1 entered controlled shutdown, 0 no change.
	InControlledShutdown int8   `json:"in_controlled_shutdown"`
	LogDirs              []UUID `json:"log_dirs,omitempty"`
}

// NoOpRecord (apiKey 20) is the active controller's idle heartbeat.
type NoOpRecord struct{}

// ZkMigrationStateRecord (apiKey 21).
type ZkMigrationStateRecord struct {
	ZkMigrationState int8 `json:"zk_migration_state"`
}

// BeginTransactionRecord (apiKey 23) opens a metadata transaction.
type BeginTransactionRecord struct {
	Name *string `json:"name,omitempty"`
}

// EndTransactionRecord (apiKey 24) commits a metadata transaction.
type EndTransactionRecord struct{}

// AbortTransactionRecord (apiKey 25) aborts a metadata transaction.
type AbortTransactionRecord struct {
	Reason *string `json:"reason,omitempty"`
}

// RegisterControllerRecord (apiKey 27) registers a controller.
type RegisterControllerRecord struct {
	ControllerID     int32            `json:"controller_id"`
	IncarnationID    UUID             `json:"incarnation_id"`
	ZkMigrationReady bool             `json:"zk_migration_ready"`
	EndPoints        []Endpoint       `json:"end_points"`
	Features         []FeatureVersion `json:"features"`
}

// ClearElrRecord (apiKey 28) clears eligible leader replicas.
type ClearElrRecord struct {
	TopicName string `json:"topic_name"`
}

// Control record values (Record.Control is true).

// LeaderChangeMessage (control type 2) opens a Raft epoch: LeaderID won the
// election of QuorumEpoch.
type LeaderChangeMessage struct {
	Version        int16   `json:"version"`
	LeaderID       int32   `json:"leader_id"`
	Voters         []int32 `json:"voters"`
	GrantingVoters []int32 `json:"granting_voters"`
}

// SnapshotHeaderRecord (control type 3) opens a snapshot.
type SnapshotHeaderRecord struct {
	Version                   int16 `json:"version"`
	LastContainedLogTimestamp int64 `json:"last_contained_log_timestamp"`
}

// SnapshotFooterRecord (control type 4) closes a snapshot.
type SnapshotFooterRecord struct {
	Version int16 `json:"version"`
}

// KRaftVersionRecord (control type 5).
type KRaftVersionRecord struct {
	Version      int16 `json:"version"`
	KRaftVersion int16 `json:"kraft_version"`
}

// VotersRecord (control type 6) is the set of Raft voters.
type VotersRecord struct {
	Version int16   `json:"version"`
	Voters  []Voter `json:"voters"`
}

// Voter is one member of a VotersRecord.
type Voter struct {
	VoterID             int32      `json:"voter_id"`
	VoterDirectoryID    UUID       `json:"voter_directory_id"`
	Endpoints           []Endpoint `json:"endpoints"`
	MinSupportedVersion int16      `json:"min_supported_version"`
	MaxSupportedVersion int16      `json:"max_supported_version"`
}

// EndTxnMarker is the value of a transaction ABORT (0) or COMMIT (1) control
// record.
type EndTxnMarker struct {
	Version          int16 `json:"version"`
	CoordinatorEpoch int32 `json:"coordinator_epoch"`
}

// ErrUnknownVersion is Record.Err for a known record type at a version this
// package does not know; the record is counted and skipped.
var ErrUnknownVersion = errors.New("kraft: unknown record version")

// ErrUnknownType is Record.Err for an apiKey or control type this package does
// not know; the record is counted and skipped.
var ErrUnknownType = errors.New("kraft: unknown record type")

type recordKind struct {
	name       string
	maxVersion int16
	decoded    bool // false: counted, not decoded
}

// metadataKinds is indexed by apiKey.
var metadataKinds = [...]recordKind{
	0:  {"RegisterBrokerRecord", 3, true},
	1:  {"UnregisterBrokerRecord", 0, true},
	2:  {"TopicRecord", 0, true},
	3:  {"PartitionRecord", 2, true},
	4:  {"ConfigRecord", 0, true},
	5:  {"PartitionChangeRecord", 2, true},
	6:  {"AccessControlRecord", 0, false}, // 2.8 preview only
	7:  {"FenceBrokerRecord", 0, true},
	8:  {"UnfenceBrokerRecord", 0, true},
	9:  {"RemoveTopicRecord", 0, true},
	10: {"DelegationTokenRecord", 0, false},
	11: {"UserScramCredentialRecord", 0, false},
	12: {"FeatureLevelRecord", 0, true},
	13: {"FailedReplicasRecord", 0, false}, // 2.8 preview only
	14: {"ClientQuotaRecord", 0, false},
	15: {"ProducerIdsRecord", 0, true},
	16: {"RemoveFeatureLevelRecord", 0, false}, // 2.8 preview only
	17: {"BrokerRegistrationChangeRecord", 2, true},
	18: {"AccessControlEntryRecord", 0, false},
	19: {"RemoveAccessControlEntryRecord", 0, false},
	20: {"NoOpRecord", 0, true},
	21: {"ZkMigrationStateRecord", 0, true},
	22: {"RemoveUserScramCredentialRecord", 0, false},
	23: {"BeginTransactionRecord", 0, true},
	24: {"EndTransactionRecord", 0, true},
	25: {"AbortTransactionRecord", 0, true},
	26: {"RemoveDelegationTokenRecord", 0, false},
	27: {"RegisterControllerRecord", 0, true},
	28: {"ClearElrRecord", 0, true},
}

// Control record types (the type field of a control record's key).
const (
	ControlAbort          int16 = 0
	ControlCommit         int16 = 1
	ControlLeaderChange   int16 = 2
	ControlSnapshotHeader int16 = 3
	ControlSnapshotFooter int16 = 4
	ControlKRaftVersion   int16 = 5
	ControlVoters         int16 = 6
)

var controlKinds = [...]recordKind{
	0: {"AbortMarker", 0, true},
	1: {"CommitMarker", 0, true},
	2: {"LeaderChangeMessage", 1, true},
	3: {"SnapshotHeaderRecord", 0, true},
	4: {"SnapshotFooterRecord", 0, true},
	5: {"KRaftVersionRecord", 0, true},
	6: {"VotersRecord", 0, true},
}

var unknownNames = func() (m [64]string) {
	for i := range m {
		m[i] = "UnknownRecord(" + strconv.Itoa(i) + ")"
	}
	return m
}()

// TypeName returns the name of a metadata record apiKey, e.g.
// "PartitionChangeRecord", or "UnknownRecord(N)".
func TypeName(apiKey int16) string {
	if apiKey >= 0 && int(apiKey) < len(metadataKinds) && metadataKinds[apiKey].name != "" {
		return metadataKinds[apiKey].name
	}
	if apiKey >= 0 && int(apiKey) < len(unknownNames) {
		return unknownNames[apiKey]
	}
	return "UnknownRecord(" + strconv.Itoa(int(apiKey)) + ")"
}

// ControlTypeName returns the name of a control record type, e.g.
// "LeaderChangeMessage", or "UnknownControl(N)".
func ControlTypeName(t int16) string {
	if t >= 0 && int(t) < len(controlKinds) {
		return controlKinds[t].name
	}
	return "UnknownControl(" + strconv.Itoa(int(t)) + ")"
}

// decodeMetadataValue decodes a metadata record value: the frame (unsigned
// varint frame version, apiKey, version) then the flexible-version message.
func decodeMetadataValue(b []byte) (apiKey, version int16, typ string, val any, err error) {
	r := reader{b: b}
	frame := r.uvarint()
	key := r.uvarint()
	ver := r.uvarint()
	if r.err != nil {
		return -1, -1, "MalformedRecord", nil, fmt.Errorf("kraft: record frame: %w", r.err)
	}
	if key > 0x7fff || ver > 0x7fff {
		return -1, -1, "MalformedRecord", nil, errors.New("kraft: record frame: apiKey or version out of range")
	}
	apiKey, version = int16(key), int16(ver)
	typ = TypeName(apiKey)
	if frame != 0 && frame != 1 {
		return apiKey, version, typ, nil, fmt.Errorf("kraft: unknown frame version %d", frame)
	}
	if int(apiKey) >= len(metadataKinds) || metadataKinds[apiKey].name == "" {
		return apiKey, version, typ, nil, ErrUnknownType
	}
	k := &metadataKinds[apiKey]
	if version > k.maxVersion {
		return apiKey, version, typ, nil, ErrUnknownVersion
	}
	if !k.decoded {
		return apiKey, version, typ, nil, nil
	}
	val = decodeMetadata(&r, apiKey, version)
	if r.err != nil {
		return apiKey, version, typ, nil, fmt.Errorf("kraft: %s v%d: %w", typ, version, r.err)
	}
	if r.remaining() != 0 {
		return apiKey, version, typ, nil, fmt.Errorf("kraft: %s v%d: %d trailing bytes", typ, version, r.remaining())
	}
	return apiKey, version, typ, val, nil
}

// decodeControlValue decodes a control record from its key and value.
func decodeControlValue(key, value []byte) (ctype, version int16, typ string, val any, err error) {
	if len(key) < 4 {
		return -1, -1, "MalformedControl", nil, errors.New("kraft: control record key shorter than 4 bytes")
	}
	kr := reader{b: key}
	kr.int16() // key version
	ctype = kr.int16()
	typ = ControlTypeName(ctype)
	if ctype < 0 || int(ctype) >= len(controlKinds) {
		return ctype, -1, typ, nil, ErrUnknownType
	}
	r := reader{b: value}
	val = decodeControl(&r, ctype)
	if r.err != nil {
		return ctype, -1, typ, nil, fmt.Errorf("kraft: %s: %w", typ, r.err)
	}
	switch v := val.(type) {
	case *LeaderChangeMessage:
		version = v.Version
	case *SnapshotHeaderRecord:
		version = v.Version
	case *SnapshotFooterRecord:
		version = v.Version
	case *KRaftVersionRecord:
		version = v.Version
	case *VotersRecord:
		version = v.Version
	case *EndTxnMarker:
		version = v.Version
	}
	return ctype, version, typ, val, nil
}

// decodeMetadata dispatches on apiKey with direct calls (so the reader
// stays on the caller's stack).
func decodeMetadata(r *reader, apiKey, v int16) any {
	switch apiKey {
	case 0:
		return decodeRegisterBroker(r, v)
	case 1:
		return decodeUnregisterBroker(r, v)
	case 2:
		return decodeTopic(r, v)
	case 3:
		return decodePartition(r, v)
	case 4:
		return decodeConfig(r, v)
	case 5:
		return decodePartitionChange(r, v)
	case 7:
		return decodeFence(r, v)
	case 8:
		return decodeUnfence(r, v)
	case 9:
		return decodeRemoveTopic(r, v)
	case 12:
		return decodeFeatureLevel(r, v)
	case 15:
		return decodeProducerIds(r, v)
	case 17:
		return decodeBrokerRegistrationChange(r, v)
	case 20:
		return decodeNoOp(r, v)
	case 21:
		return decodeZkMigration(r, v)
	case 23:
		return decodeBeginTransaction(r, v)
	case 24:
		return decodeEndTransaction(r, v)
	case 25:
		return decodeAbortTransaction(r, v)
	case 27:
		return decodeRegisterController(r, v)
	case 28:
		return decodeClearElr(r, v)
	}
	return nil
}

func decodeControl(r *reader, t int16) any {
	switch t {
	case ControlAbort, ControlCommit:
		return decodeEndTxnMarker(r, 0)
	case ControlLeaderChange:
		return decodeLeaderChange(r, 0)
	case ControlSnapshotHeader:
		return decodeSnapshotHeader(r, 0)
	case ControlSnapshotFooter:
		return decodeSnapshotFooter(r, 0)
	case ControlKRaftVersion:
		return decodeKRaftVersion(r, 0)
	case ControlVoters:
		return decodeVoters(r, 0)
	}
	return nil
}

// ---- metadata record decoders. Each reads the fields of its schema at
// version v, then the tagged-field section.

func (r *reader) endpoints(withProtocol bool) []Endpoint {
	n, null := r.compactLen(4)
	if null {
		return nil
	}
	out := make([]Endpoint, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		e := Endpoint{Name: r.compactString(), Host: r.compactString(), Port: r.uint16()}
		if withProtocol {
			e.SecurityProtocol = r.int16()
		}
		r.skipTagged()
		out = append(out, e)
	}
	return out
}

func (r *reader) features() []FeatureVersion {
	n, null := r.compactLen(5)
	if null {
		return nil
	}
	out := make([]FeatureVersion, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		f := FeatureVersion{Name: r.compactString(), MinSupportedVersion: r.int16(), MaxSupportedVersion: r.int16()}
		r.skipTagged()
		out = append(out, f)
	}
	return out
}

func decodeRegisterBroker(r *reader, v int16) any {
	x := &RegisterBrokerRecord{BrokerID: r.int32()}
	if v >= 2 {
		x.IsMigratingZkBroker = r.bool()
	}
	x.IncarnationID = r.uuid()
	x.BrokerEpoch = r.int64()
	x.EndPoints = r.endpoints(true)
	x.Features = r.features()
	x.Rack = r.compactNullableString()
	x.Fenced = r.bool()
	if v >= 1 {
		x.InControlledShutdown = r.bool()
	}
	r.taggedFields(func(tag uint32, f *reader) bool {
		if tag == 0 && v >= 3 {
			x.LogDirs = f.compactUUIDs()
			return true
		}
		return false
	})
	return x
}

func decodeUnregisterBroker(r *reader, v int16) any {
	x := &UnregisterBrokerRecord{BrokerID: r.int32(), BrokerEpoch: r.int64()}
	r.skipTagged()
	return x
}

func decodeTopic(r *reader, v int16) any {
	x := &TopicRecord{Name: r.compactString(), TopicID: r.uuid()}
	r.skipTagged()
	return x
}

func decodePartition(r *reader, v int16) any {
	x := &PartitionRecord{
		PartitionID:      r.int32(),
		TopicID:          r.uuid(),
		Replicas:         r.compactInt32s(),
		ISR:              r.compactInt32s(),
		RemovingReplicas: r.compactInt32s(),
		AddingReplicas:   r.compactInt32s(),
		Leader:           r.int32(),
		LeaderEpoch:      r.int32(),
		PartitionEpoch:   r.int32(),
	}
	if v >= 1 {
		x.Directories = r.compactUUIDs()
	}
	r.taggedFields(func(tag uint32, f *reader) bool {
		switch {
		case tag == 0:
			x.LeaderRecoveryState = f.int8()
		case tag == 1 && v >= 2:
			x.ELR = f.compactInt32s()
		case tag == 2 && v >= 2:
			x.LastKnownELR = f.compactInt32s()
		default:
			return false
		}
		return true
	})
	return x
}

func decodeConfig(r *reader, v int16) any {
	x := &ConfigRecord{
		ResourceType: r.int8(),
		ResourceName: r.compactString(),
		Name:         r.compactString(),
		Value:        r.compactNullableString(),
	}
	r.skipTagged()
	return x
}

func decodePartitionChange(r *reader, v int16) any {
	x := &PartitionChangeRecord{
		PartitionID:         r.int32(),
		TopicID:             r.uuid(),
		Leader:              LeaderUnchanged,
		LeaderRecoveryState: LeaderRecoveryUnchanged,
	}
	r.taggedFields(func(tag uint32, f *reader) bool {
		switch {
		case tag == 0:
			x.ISR = f.compactInt32s()
		case tag == 1:
			x.Leader = f.int32()
			x.HasLeader = true
		case tag == 2:
			x.Replicas = f.compactInt32s()
		case tag == 3:
			x.RemovingReplicas = f.compactInt32s()
		case tag == 4:
			x.AddingReplicas = f.compactInt32s()
		case tag == 5:
			x.LeaderRecoveryState = f.int8()
		case tag == 6 && v >= 2:
			x.ELR = f.compactInt32s()
		case tag == 7 && v >= 2:
			x.LastKnownELR = f.compactInt32s()
		case tag == 8 && v >= 1:
			x.Directories = f.compactUUIDs()
		default:
			return false
		}
		return true
	})
	return x
}

func decodeFence(r *reader, v int16) any {
	x := &FenceBrokerRecord{ID: r.int32(), Epoch: r.int64()}
	r.skipTagged()
	return x
}

func decodeUnfence(r *reader, v int16) any {
	x := &UnfenceBrokerRecord{ID: r.int32(), Epoch: r.int64()}
	r.skipTagged()
	return x
}

func decodeRemoveTopic(r *reader, v int16) any {
	x := &RemoveTopicRecord{TopicID: r.uuid()}
	r.skipTagged()
	return x
}

func decodeFeatureLevel(r *reader, v int16) any {
	x := &FeatureLevelRecord{Name: r.compactString(), FeatureLevel: r.int16()}
	r.skipTagged()
	return x
}

func decodeProducerIds(r *reader, v int16) any {
	x := &ProducerIdsRecord{BrokerID: r.int32(), BrokerEpoch: r.int64(), NextProducerID: r.int64()}
	r.skipTagged()
	return x
}

func decodeBrokerRegistrationChange(r *reader, v int16) any {
	x := &BrokerRegistrationChangeRecord{BrokerID: r.int32(), BrokerEpoch: r.int64()}
	r.taggedFields(func(tag uint32, f *reader) bool {
		switch {
		case tag == 0:
			x.Fenced = f.int8()
		case tag == 1 && v >= 1:
			x.InControlledShutdown = f.int8()
		case tag == 2 && v >= 2:
			x.LogDirs = f.compactUUIDs()
		default:
			return false
		}
		return true
	})
	return x
}

// theNoOp is shared: NoOp records are the bulk of a metadata log and carry
// nothing.
var theNoOp = &NoOpRecord{}

func decodeNoOp(r *reader, v int16) any {
	r.skipTagged()
	return theNoOp
}

func decodeZkMigration(r *reader, v int16) any {
	x := &ZkMigrationStateRecord{ZkMigrationState: r.int8()}
	r.skipTagged()
	return x
}

func decodeBeginTransaction(r *reader, v int16) any {
	x := &BeginTransactionRecord{}
	r.taggedFields(func(tag uint32, f *reader) bool {
		if tag == 0 {
			x.Name = f.compactNullableString()
			return true
		}
		return false
	})
	return x
}

func decodeEndTransaction(r *reader, v int16) any {
	r.skipTagged()
	return &EndTransactionRecord{}
}

func decodeAbortTransaction(r *reader, v int16) any {
	x := &AbortTransactionRecord{}
	r.taggedFields(func(tag uint32, f *reader) bool {
		if tag == 0 {
			x.Reason = f.compactNullableString()
			return true
		}
		return false
	})
	return x
}

func decodeRegisterController(r *reader, v int16) any {
	x := &RegisterControllerRecord{
		ControllerID:     r.int32(),
		IncarnationID:    r.uuid(),
		ZkMigrationReady: r.bool(),
		EndPoints:        r.endpoints(true),
		Features:         r.features(),
	}
	r.skipTagged()
	return x
}

func decodeClearElr(r *reader, v int16) any {
	x := &ClearElrRecord{TopicName: r.compactString()}
	r.skipTagged()
	return x
}

// ---- control record decoders. Kafka reads these at version 0 whatever
// their Version field says; so do we, ignoring what follows.

func (r *reader) voterIDs() []int32 {
	n, null := r.compactLen(5)
	if null {
		return nil
	}
	out := make([]int32, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.int32())
		r.skipTagged()
	}
	return out
}

func decodeLeaderChange(r *reader, _ int16) any {
	x := &LeaderChangeMessage{Version: r.int16(), LeaderID: r.int32()}
	if x.Version >= 1 {
		// Version 1 adds VoterDirectoryId to each voter.
		x.Voters = r.voterIDsV1()
		x.GrantingVoters = r.voterIDsV1()
	} else {
		x.Voters = r.voterIDs()
		x.GrantingVoters = r.voterIDs()
	}
	r.skipTagged()
	return x
}

func (r *reader) voterIDsV1() []int32 {
	n, null := r.compactLen(21)
	if null {
		return nil
	}
	out := make([]int32, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.int32())
		r.uuid()
		r.skipTagged()
	}
	return out
}

func decodeSnapshotHeader(r *reader, _ int16) any {
	x := &SnapshotHeaderRecord{Version: r.int16(), LastContainedLogTimestamp: r.int64()}
	r.skipTagged()
	return x
}

func decodeSnapshotFooter(r *reader, _ int16) any {
	x := &SnapshotFooterRecord{Version: r.int16()}
	r.skipTagged()
	return x
}

func decodeKRaftVersion(r *reader, _ int16) any {
	x := &KRaftVersionRecord{Version: r.int16(), KRaftVersion: r.int16()}
	r.skipTagged()
	return x
}

func decodeVoters(r *reader, _ int16) any {
	x := &VotersRecord{Version: r.int16()}
	n, null := r.compactLen(20)
	if !null {
		x.Voters = make([]Voter, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			vo := Voter{VoterID: r.int32(), VoterDirectoryID: r.uuid(), Endpoints: r.endpoints(false)}
			vo.MinSupportedVersion = r.int16()
			vo.MaxSupportedVersion = r.int16()
			r.skipTagged() // KRaftVersionFeature's tagged fields
			r.skipTagged() // Voter's tagged fields
			x.Voters = append(x.Voters, vo)
		}
	}
	r.skipTagged()
	return x
}

func decodeEndTxnMarker(r *reader, _ int16) any {
	return &EndTxnMarker{Version: r.int16(), CoordinatorEpoch: r.int32()}
}

// metadataVersions maps metadata.version feature levels to Kafka's names
// (server-common MetadataVersion).
var metadataVersions = [...]string{
	1: "3.0-IV1", 2: "3.1-IV0", 3: "3.2-IV0", 4: "3.3-IV0", 5: "3.3-IV1",
	6: "3.3-IV2", 7: "3.3-IV3", 8: "3.4-IV0", 9: "3.5-IV0", 10: "3.5-IV1",
	11: "3.5-IV2", 12: "3.6-IV0", 13: "3.6-IV1", 14: "3.6-IV2", 15: "3.7-IV0",
	16: "3.7-IV1", 17: "3.7-IV2", 18: "3.7-IV3", 19: "3.7-IV4", 20: "3.8-IV0",
	21: "3.9-IV0", 22: "4.0-IV0", 23: "4.0-IV1", 24: "4.0-IV2", 25: "4.0-IV3",
	26: "4.1-IV0", 27: "4.1-IV1", 28: "4.2-IV0", 29: "4.2-IV1", 30: "4.3-IV0",
}

// MetadataVersionName returns Kafka's name for a metadata.version feature
// level, e.g. 14 → "3.6-IV2", or "" if unknown.
func MetadataVersionName(level int16) string {
	if level > 0 && int(level) < len(metadataVersions) {
		return metadataVersions[level]
	}
	return ""
}
