// Package kraft decodes Apache Kafka KRaft __cluster_metadata log segments
// (<base offset>.log) and snapshots (<end offset>-<epoch>.checkpoint)
// without a JVM, and replays them into partition leadership decisions: the
// controller's own record of every election.
//
// Decoding. ReadFile, Read and ReadBytes decode record batches (magic 2,
// CRC-32C checked on every batch; gzip, snappy in xerial framing or raw,
// lz4 and zstd), Raft control records (LeaderChangeMessage,
// SnapshotHeader/FooterRecord, KRaftVersionRecord, VotersRecord) and
// metadata records (frame version, apiKey, version, then Kafka's
// flexible-version encoding). Each record reaches a callback as a Record
// whose Value is a typed struct (*PartitionChangeRecord, ...). Records of
// unknown types or versions are counted and skipped. Damage never stops
// decoding and never panics: a batch whose CRC fails is reported and
// skipped (resuming at the next batch boundary, found by scanning when the
// length field is not to be trusted), as are a truncated tail and a file
// that is not a log at all, all in the Census returned for each file.
//
// Replay. A Replayer folds records in offset order into topic, partition
// and broker state and emits a Decision for every new partition and every
// PartitionChangeRecord that sets the leader (which bumps the leader epoch,
// also when the leader stays) or the leader recovery state, with the
// commit time, epochs, ISR before and after, an unclean flag and a cause
// read off the same batch (fencing, controlled shutdown, unregistration,
// reassignment, preferred election, unfencing). OpenDir orders a metadata
// log directory's snapshot and segments; Dir.Replay replays them and checks
// the replayed state against any newer snapshot.
//
// Dump writes records, decisions and censuses as JSON lines; it backs the
// leaderaudit metadata command.
package kraft
