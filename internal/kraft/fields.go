package kraft

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// field is one named value of a record, in schema order.
type field struct {
	name  string
	value any
}

// fieldList returns the fields of a typed record value in declaration order,
// named by their json tags. Optional fields ("omitempty") that the record did
// not carry (nil) are left out.
func fieldList(v any) []field {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil
	}
	rt := rv.Type()
	out := make([]field, 0, rt.NumField())
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		fv := rv.Field(i)
		if strings.Contains(opts, "omitempty") {
			switch fv.Kind() {
			case reflect.Slice, reflect.Pointer, reflect.Map, reflect.Interface:
				if fv.IsNil() {
					continue
				}
			}
		}
		out = append(out, field{name, fv.Interface()})
	}
	return out
}

// Fields returns the record's decoded fields keyed by their snake_case
// names (e.g. "partition_id", "topic_id", "leader"), for JSON output. Values
// keep their Go types (UUIDs marshal to Kafka's base64 form). Optional
// fields the record did not carry are absent. It is empty when Value is nil.
func (r Record) Fields() map[string]any {
	fl := fieldList(r.Value)
	m := make(map[string]any, len(fl))
	for _, f := range fl {
		m[f.name] = f.value
	}
	return m
}

// MarshalJSON writes durations as Go duration strings ("1.5s").
func (s NoOpStats) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Records     int    `json:"records"`
		MedianGap   string `json:"median_gap"`
		MaxGap      string `json:"max_gap"`
		MaxGapAfter int64  `json:"max_gap_after_offset"`
		Stalls      int    `json:"stalls"`
		MaxStall    string `json:"max_stall"`
		MaxStallAt  int64  `json:"max_stall_after_offset"`
		EpochGaps   int    `json:"epoch_gaps"`
	}{s.Records, s.MedianGap.String(), s.MaxGap.String(), s.MaxGapAfter,
		s.Stalls, s.MaxStall.String(), s.MaxStallAt, s.EpochGaps})
}

// jsonTime formats a time as RFC 3339 with milliseconds, UTC.
func jsonTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
