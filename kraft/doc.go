// Package kraft decodes Apache Kafka KRaft __cluster_metadata log segments
// and snapshots without a JVM, and replays them into partition leader
// decisions.
package kraft
