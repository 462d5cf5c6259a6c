package conformance

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// A client whose logger writes to its process's stderr (librdkafka's
// default rd_kafka_log_print) runs in a child process: the test binary
// re-executed with helperEnv naming the client. Its stderr is the log;
// closing its stdin tells it to flush and exit.
const helperEnv = "LEADERAUDIT_CONFORMANCE_HELPER"

// helpers: the clients that run as a child, by name (registered where
// their build constraints allow: librdkafka needs cgo).
var helpers = map[string]func(seeds []string, stop <-chan struct{}) error{}

func helperMain() int {
	name := os.Getenv(helperEnv)
	fn := helpers[name]
	if fn == nil {
		fmt.Fprintf(os.Stdout, "no client helper %q\n", name)
		return 2
	}
	stop := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	if err := fn(strings.Split(os.Getenv(helperEnv+"_SEEDS"), ","), stop); err != nil {
		fmt.Fprintln(os.Stdout, err)
		return 1
	}
	return 0
}

// childProduce runs the named helper with its stderr going to w.
func childProduce(name string) func([]string, io.Writer, <-chan struct{}) error {
	return func(seeds []string, w io.Writer, stop <-chan struct{}) error {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+name, helperEnv+"_SEEDS="+strings.Join(seeds, ","))
		cmd.Stderr = w
		var out strings.Builder
		cmd.Stdout = &out
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
			return fmt.Errorf("%s: %v: %s", name, err, out.String())
		}
		return nil
	}
}
