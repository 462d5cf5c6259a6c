package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/rs/zerolog"
	kafkago "github.com/segmentio/kafka-go"
	"github.com/sirupsen/logrus"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// sendEvery paces every client alike: a record every few milliseconds,
// round robin, so each move catches batches in flight.
const sendEvery = 4 * time.Millisecond

// saramaMu: sarama.Logger is a package variable; runs that set it take
// turns.
var saramaMu sync.Mutex

func saramaProduce(logger func(io.Writer) sarama.StdLogger, idempotent bool) func([]string, io.Writer, <-chan struct{}) error {
	return func(seeds []string, w io.Writer, stop <-chan struct{}) error {
		saramaMu.Lock()
		defer saramaMu.Unlock()
		sarama.Logger = logger(w)
		defer func() { sarama.Logger = log.New(io.Discard, "[Sarama] ", log.LstdFlags) }()
		cfg := sarama.NewConfig()
		cfg.Version = sarama.V3_6_0_0
		cfg.ClientID = "sarama-conformance"
		cfg.Producer.RequiredAcks = sarama.WaitForAll
		cfg.Producer.Partitioner = sarama.NewRoundRobinPartitioner
		cfg.Producer.Retry.Max = 1000
		cfg.Producer.Retry.Backoff = 50 * time.Millisecond
		cfg.Producer.Return.Successes = true
		cfg.Producer.Flush.Frequency = 5 * time.Millisecond
		cfg.Metadata.Retry.Backoff = 50 * time.Millisecond
		if idempotent {
			cfg.Producer.Idempotent = true
			cfg.Net.MaxOpenRequests = 1
		}
		p, err := sarama.NewAsyncProducer(seeds, cfg)
		if err != nil {
			return err
		}
		var failed error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range p.Successes() {
			}
		}()
		go func() {
			defer wg.Done()
			for e := range p.Errors() {
				failed = e
			}
		}()
		tick := time.NewTicker(sendEvery)
		defer tick.Stop()
	loop:
		for i := 0; ; i++ {
			select {
			case <-stop:
				break loop
			case <-tick.C:
				p.Input() <- &sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(fmt.Sprint(i))}
			}
		}
		p.AsyncClose()
		wg.Wait()
		return failed
	}
}

func TestSarama(t *testing.T) {
	zapLogger := func(enc zapcore.Encoder, w io.Writer) *zap.Logger {
		return zap.New(zapcore.NewCore(enc, zapcore.AddSync(w), zap.DebugLevel))
	}
	std := func(w io.Writer) sarama.StdLogger { return log.New(w, "[sarama] ", log.LstdFlags|log.Lmicroseconds) }
	for _, tc := range []struct {
		name       string
		logger     func(io.Writer) sarama.StdLogger
		idempotent bool
	}{
		// The prefix of sarama's own default logger, with and without
		// the space an application copying it may drop.
		{"sarama-std", std, false},
		// The idempotent producer retries a batch on a goroutine of its
		// own, which logs "Retrying batch for T-P" after the retry line.
		{"sarama-idempotent", std, true},
		{"sarama-std-nospace", func(w io.Writer) sarama.StdLogger {
			return log.New(w, "[sarama]", log.LstdFlags|log.Lmicroseconds)
		}, false},
		// Go's log with the caller: sarama's own file and line first.
		{"sarama-std-shortfile", func(w io.Writer) sarama.StdLogger {
			return log.New(w, "", log.LstdFlags|log.Lmicroseconds|log.Lshortfile)
		}, false},
		{"sarama-logrus", func(w io.Writer) sarama.StdLogger {
			l := logrus.New()
			l.Out = w
			l.Formatter = &logrus.TextFormatter{DisableColors: true, FullTimestamp: true, TimestampFormat: time.RFC3339Nano}
			return l.WithField("component", "sarama")
		}, false},
		{"sarama-zap-json", func(w io.Writer) sarama.StdLogger {
			return zap.NewStdLog(zapLogger(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), w).Named("sarama"))
		}, false},
		{"sarama-zap-console", func(w io.Writer) sarama.StdLogger {
			return zap.NewStdLog(zapLogger(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), w).Named("sarama"))
		}, false},
		{"sarama-zerolog", func(w io.Writer) sarama.StdLogger {
			zl := zerolog.New(w).With().Timestamp().Str("component", "sarama").Logger()
			return log.New(zl, "", 0)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run(t, workload{name: tc.name, produce: saramaProduce(tc.logger, tc.idempotent)})
		})
	}
}

// goLogWriter hands each line to Go's log package, as an application
// that routes kgo.BasicLogger into its standard logger does.
type goLogWriter struct{ l *log.Logger }

func (g goLogWriter) Write(b []byte) (int, error) {
	g.l.Print(string(b))
	return len(b), nil
}

func franzProduce(level kgo.LogLevel, prefix func() string, golog bool) func([]string, io.Writer, <-chan struct{}) error {
	return func(seeds []string, w io.Writer, stop <-chan struct{}) error {
		if golog {
			w = goLogWriter{log.New(w, "", log.LstdFlags|log.Lmicroseconds)}
		}
		cl, err := kgo.NewClient(
			kgo.SeedBrokers(seeds...),
			kgo.ClientID("franz-conformance"),
			kgo.DefaultProduceTopic(topic),
			kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
			kgo.ProducerLinger(0),
			kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond }),
			kgo.WithLogger(kgo.BasicLogger(w, level, prefix)),
		)
		if err != nil {
			return err
		}
		defer cl.Close()
		var mu sync.Mutex
		var failed error
		tick := time.NewTicker(sendEvery)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if err := cl.Flush(ctx); err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				return failed
			case <-tick.C:
				cl.Produce(context.Background(), &kgo.Record{Value: []byte(fmt.Sprint(i))}, func(_ *kgo.Record, err error) {
					if err != nil {
						mu.Lock()
						failed = err
						mu.Unlock()
					}
				})
			}
		}
	}
}

func TestFranzGo(t *testing.T) {
	utc := func() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + " " }
	for _, tc := range []struct {
		name   string
		level  kgo.LogLevel
		prefix func() string
		vs     *kversion.Versions
		golog  bool
	}{
		{"franz-go-info", kgo.LogLevelInfo, utc, nil, false},
		{"franz-go-debug", kgo.LogLevelDebug, utc, nil, false},
		// Into Go's log: "2026/12/02 18:35:33.248114 [INFO] moving …".
		{"franz-go-info-golog", kgo.LogLevelInfo, nil, nil, true},
		// Before KIP-951 (Produce v9, Kafka 3.6) no INFO line names the
		// partition; at DEBUG "produced" does.
		{"franz-go-debug-3.6", kgo.LogLevelDebug, utc, kversion.V3_6_0(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run(t, workload{name: tc.name, produce: franzProduce(tc.level, tc.prefix, tc.golog), versions: tc.vs})
		})
	}
}

func kafkaGoProduce(seeds []string, w io.Writer, stop <-chan struct{}) error {
	errLog := log.New(w, "kafka-go ERROR ", log.LstdFlags|log.Lmicroseconds)
	wr := &kafkago.Writer{
		Addr:         kafkago.TCP(seeds...),
		Topic:        topic,
		Balancer:     &kafkago.RoundRobin{},
		RequiredAcks: kafkago.RequireAll,
		MaxAttempts:  1000,
		BatchTimeout: 2 * time.Millisecond,
		ErrorLogger:  kafkago.LoggerFunc(errLog.Printf),
		Transport:    &kafkago.Transport{MetadataTTL: 200 * time.Millisecond},
	}
	defer wr.Close()
	tick := time.NewTicker(sendEvery)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return nil
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err := wr.WriteMessages(ctx, kafkago.Message{Value: []byte(fmt.Sprint(i))})
			cancel()
			if err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("kafka-go: %w", err)
			}
		}
	}
}

func TestKafkaGo(t *testing.T) {
	run(t, workload{name: "kafka-go", produce: kafkaGoProduce})
}

var _ = strings.TrimSpace
