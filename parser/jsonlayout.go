package parser

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// Field names used by logstash-logback-encoder, ECS, log4j2 JsonTemplateLayout,
// KafkaJS and common shippers, in order of preference.
var (
	jsonTimeKeys   = []string{"@timestamp", "timestamp", "time", "ts", "date", "_time"}
	jsonLevelKeys  = []string{"level", "log.level", "severity", "loglevel"}
	jsonLoggerKeys = []string{"logger_name", "logger", "log.logger", "loggerName", "category"}
	jsonMsgKeys    = []string{"message", "msg", "_msg", "log"}
	jsonThreadKeys = []string{"thread_name", "thread", "process.thread.name", "threadName"}
	jsonStackKeys  = []string{"stack_trace", "error.stack_trace", "exception", "stacktrace", "error"}
)

func parseJSON(line []byte, loc *time.Location, r *Record) bool {
	line = bytes.TrimRight(line, " \r")
	if len(line) < 2 || line[len(line)-1] != '}' {
		return false
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		return false
	}
	get := func(keys []string) string {
		for _, k := range keys {
			if v, ok := m[k]; ok {
				switch x := v.(type) {
				case string:
					return x
				case map[string]any:
					// ECS nests: {"log":{"level":"info"}}
					continue
				}
			}
			// Dotted ECS keys nested as objects.
			if i := strings.IndexByte(k, '.'); i > 0 {
				if sub, ok := m[k[:i]].(map[string]any); ok {
					if s, ok := sub[k[i+1:]].(string); ok {
						return s
					}
				}
			}
		}
		return ""
	}
	msg := get(jsonMsgKeys)
	ts := get(jsonTimeKeys)
	var t time.Time
	if ts == "" {
		// Epoch numbers: log4j2 JSONLayout's "instant" object (or
		// "timeMillis"), Logback 1.3+ JsonEncoder's "timestamp" millis.
		var ok bool
		if t, ok = jsonEpoch(m); !ok {
			return false
		}
		r.HasZone = true
	} else {
		var n int
		var ok bool
		if t, n, ok = parseStamp([]byte(ts), loc); !ok {
			return false
		}
		if off, _, ok := parseOffset([]byte(ts[n:])); ok {
			t = withOffset(t, off)
			r.HasZone = true
		}
	}
	lv, _ := parseLevel([]byte(strings.ToUpper(get(jsonLevelKeys))))
	if lv == LevelNone {
		lv = LevelInfo
	}
	r.Time, r.Level, r.Layout = t, lv, LayoutJSON
	r.Logger = []byte(get(jsonLoggerKeys))
	r.Thread = []byte(get(jsonThreadKeys))
	r.Msg = []byte(strings.TrimRight(msg, "\r\n"))
	r.Stack = []byte(get(jsonStackKeys))
	if len(r.Stack) == 0 {
		// log4j2 JSONLayout "thrown", Logback JsonEncoder "throwable":
		// objects naming the exception class and its message.
		for _, k := range [...]string{"thrown", "throwable"} {
			if th, ok := m[k].(map[string]any); ok {
				name, _ := th["name"].(string)
				if name == "" {
					name, _ = th["className"].(string)
				}
				text, _ := th["message"].(string)
				r.Stack = []byte(name + ": " + text)
			}
		}
	}
	// KafkaJS puts the error text in "error" and the client in "clientId".
	if cid, ok := m["clientId"].(string); ok && len(r.Thread) == 0 {
		r.Thread = []byte(cid)
	}
	if string(r.Logger) == "kafkajs" {
		if b, ok := m["broker"].(string); ok {
			r.Conn = []byte(b)
		}
		if c, ok := m["correlationId"].(float64); ok {
			r.Corr, r.HasCorr = int64(c), true
		}
	}
	return true
}

// maxEpochSeconds is 10000-01-01T00:00:00Z.
const maxEpochSeconds = 253402300800

func jsonEpoch(m map[string]any) (time.Time, bool) {
	if in, ok := m["instant"].(map[string]any); ok {
		sec, ok1 := in["epochSecond"].(float64)
		ns, _ := in["nanoOfSecond"].(float64)
		if ok1 && sec >= 0 && sec < maxEpochSeconds {
			return time.Unix(int64(sec), int64(ns)).UTC(), true
		}
	}
	for _, k := range [...]string{"timeMillis", "timestamp", "@timestamp", "time", "ts"} {
		v, ok := m[k].(float64)
		if !ok || v <= 0 || v >= maxEpochSeconds*1000 {
			// Past year 9999 (1e300): no log's time, and not one RFC
			// 3339 can write.
			continue
		}
		// Seconds (with a fraction) or milliseconds since the epoch.
		if v < 1e11 {
			return time.Unix(0, int64(v*1e9)).UTC(), true
		}
		return time.UnixMilli(int64(v)).UTC(), true
	}
	return time.Time{}, false
}
