package gen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Era selects which Kafka version's log dialect the generator writes.
type Era string

// The supported eras. Each era is rendered as one representative Kafka
// release (see the package documentation for the exact version and why).
const (
	Era010     Era = "0.10"      // Kafka 0.10.2.2, ZooKeeper, state-change.log at TRACE
	Era2xTrace Era = "2.x-trace" // Kafka 2.3.1, ZooKeeper, state-change.log at TRACE
	Era26Info  Era = "2.6-info"  // Kafka 2.8.2, ZooKeeper, state-change.log at INFO (2.6+ default)
	EraKRaft   Era = "kraft"     // Kafka 3.9, KRaft with a dedicated controller quorum
)

// Eras lists every supported era in a stable order.
var Eras = []Era{Era010, Era2xTrace, Era26Info, EraKRaft}

// ParseEra accepts an era name as written on the command line.
func ParseEra(s string) (Era, error) {
	for _, e := range Eras {
		if string(e) == s {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown era %q (want one of 0.10, 2.x-trace, 2.6-info, kraft)", s)
}

// Producer application log layouts.
const (
	LayoutLog4j  = "log4j"  // Kafka's own "[%d] %p %m (%c)%n"
	LayoutSpring = "spring" // Spring Boot 3.x console (Logback) layout
)

// Config describes one generated data set. The zero value is not usable;
// start from DefaultConfig and override fields.
type Config struct {
	Era               Era
	Brokers           int            // number of brokers, ids 1..Brokers (>= 2)
	Partitions        int            // partitions per application topic
	Topics            int            // number of application topics
	OffsetsPartitions int            // partitions of __consumer_offsets (0 = no such topic)
	Controllers       int            // KRaft only: size of the dedicated controller quorum (ids 3000..)
	Producers         int            // number of producer applications (producer-1..N)
	ProducerLayout    string         // LayoutLog4j or LayoutSpring
	Seed              int64          // same seed + same config => byte-identical output
	Size              int64          // approximate total bytes to write
	Noise             int            // unrelated lines per leadership line
	Start             time.Time      // wall-clock start (only its fields in Location matter)
	Location          *time.Location // zone of all timestamps (printed without offset in logs)
}

// DefaultConfig returns the configuration used by the CLI when no flags are given.
func DefaultConfig() Config {
	return Config{
		Era:               Era26Info,
		Brokers:           3,
		Partitions:        12,
		Topics:            4,
		OffsetsPartitions: 50,
		Controllers:       3,
		Producers:         3,
		ProducerLayout:    LayoutLog4j,
		Seed:              1,
		Size:              64 << 20,
		Noise:             20,
		Start:             time.Date(2024, 3, 11, 10, 0, 0, 0, time.UTC),
		Location:          time.UTC,
	}
}

// Validate reports the first problem with c, if any.
func (c *Config) Validate() error {
	if _, err := ParseEra(string(c.Era)); err != nil {
		return err
	}
	switch {
	case c.Brokers < 2 || c.Brokers > 99:
		return errors.New("brokers must be between 2 and 99 (leader elections need a second replica)")
	case c.Partitions < 1 || c.Partitions > 10000:
		return errors.New("partitions must be between 1 and 10000")
	case c.Topics < 1 || c.Topics > 1000:
		return errors.New("topics must be between 1 and 1000")
	case c.OffsetsPartitions < 0 || c.OffsetsPartitions > 1000:
		return errors.New("offsets-partitions must be between 0 and 1000")
	case c.Era == EraKRaft && (c.Controllers < 1 || c.Controllers > 9):
		return errors.New("controllers must be between 1 and 9")
	case c.Producers < 1 || c.Producers > 100:
		return errors.New("producers must be between 1 and 100")
	case c.ProducerLayout != LayoutLog4j && c.ProducerLayout != LayoutSpring:
		return fmt.Errorf("producer layout must be %q or %q", LayoutLog4j, LayoutSpring)
	case c.Size < 1<<16:
		return errors.New("size must be at least 64KiB")
	case c.Noise < 0 || c.Noise > 10000:
		return errors.New("noise must be between 0 and 10000")
	case c.Location == nil:
		return errors.New("location (time zone) is required")
	case c.Start.IsZero():
		return errors.New("start time is required")
	}
	return nil
}

// ParseSize parses sizes such as "1GB", "500MB", "64MiB", "1e9" or "123456".
// KB/MB/GB/TB are decimal (1GB = 10^9 bytes); KiB/MiB/GiB/TiB are binary.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, errors.New("empty size")
	}
	units := []struct {
		suffix string
		mult   float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1},
	}
	mult := 1.0
	upper := strings.ToUpper(t)
	for _, u := range units {
		if strings.HasSuffix(upper, strings.ToUpper(u.suffix)) && (strings.Contains(u.suffix, "i") == strings.Contains(t, "i")) {
			mult = u.mult
			t = strings.TrimSpace(t[:len(t)-len(u.suffix)])
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return int64(f * mult), nil
}

// ParseStart parses the --start flag (RFC 3339 without zone, optionally with
// milliseconds) as a wall-clock time in loc.
func ParseStart(s string, loc *time.Location) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.000", "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid start time %q (want e.g. 2024-03-11T10:00:00)", s)
}
