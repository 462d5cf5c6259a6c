package conformance

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// kafkajs runs under node from kafkajs/ (npm ci installs the version
// package-lock.json pins). Without node or the package the test skips,
// unless LEADERAUDIT_REQUIRE_KAFKAJS is set (CI).
func kafkajsProduce(level string) func([]string, io.Writer, <-chan struct{}) error {
	return func(seeds []string, w io.Writer, stop <-chan struct{}) error {
		cmd := exec.Command("node", "produce.js")
		cmd.Dir = "kafkajs"
		cmd.Env = append(os.Environ(), "BROKERS="+strings.Join(seeds, ","), fmt.Sprintf("PARTITIONS=%d", partitions),
			"CLIENT_ID=kafkajs-"+level, "LOG_LEVEL="+level)
		cmd.Stdout, cmd.Stderr = w, w
		in, err := cmd.StdinPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		<-stop
		in.Close()
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("kafkajs: %v (the log has its last words)", err)
		}
		return nil
	}
}

func TestKafkaJS(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		skipOrFail(t, "node is not installed")
	}
	if _, err := os.Stat(filepath.Join("kafkajs", "node_modules", "kafkajs", "package.json")); err != nil {
		skipOrFail(t, "kafkajs is not installed: run npm ci in internal/conformance/kafkajs")
	}
	for _, level := range []string{"info", "debug"} {
		name := "kafkajs-" + level
		t.Run(name, func(t *testing.T) {
			run(t, workload{name: name, produce: kafkajsProduce(level), noPartition: true})
		})
	}
}

func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("LEADERAUDIT_REQUIRE_KAFKAJS") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}
