// Command leaderaudit reconstructs Kafka partition leader elections from
// broker, controller and client logs and matches producer errors to them.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/leaderaudit/leaderaudit/internal/memgoal"
	"github.com/leaderaudit/leaderaudit/internal/textfmt"
)

// Exit codes (documented in the README).
const (
	exitOK          = 0
	exitError       = 1 // a runtime failure: nothing could be read, the output could not be written
	exitUsage       = 2 // the command line is wrong
	exitFindings    = 3 // --fail-on matched a finding
	exitInterrupted = 130
	exitTerminated  = 143
)

// CLI is the command line.
type CLI struct {
	Version  kong.VersionFlag `help:"Print the version and exit."`
	Audit    AuditCmd         `cmd:"" help:"Audit a set of log files or directories (batch postmortem)."`
	Watch    WatchCmd         `cmd:"" help:"Watch Kafka logs live: elections as they happen, how long each takes on each broker, and the producer errors they cause. The screen is drawn on stderr; the text report goes to stdout when you quit."`
	Metadata MetadataCmd      `cmd:"" help:"Decode KRaft __cluster_metadata segments and snapshots as JSON lines."`
}

// stdio are the process's standard streams, bound into every command's Run
// (tests give buffers).
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// errFailOn: --fail-on matched (the report says which findings).
var errFailOn = errors.New("--fail-on matched")

// interrupted: a signal stopped the audit; the report covers what was read.
type interrupted struct{ sig os.Signal }

func (e interrupted) Error() string { return "interrupted; the report covers what was read" }

func main() {
	memgoal.Start()
	os.Exit(run(os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr}))
}

// version is the module version the binary was built from ("(devel)" from
// a checkout), with the VCS revision when the build recorded one.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "leaderaudit (unknown version)"
	}
	v := "leaderaudit " + bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " (" + rev + dirty + ")"
	}
	return v
}

// kongExit carries an exit status out of kong (--help, --version) without
// leaving the process, so tests can run the command line.
type kongExit int

// newParser is the command line's parser (tests parse with it too, so they
// see kong's real defaults).
func newParser(cli *CLI, io stdio) (*kong.Kong, error) {
	return kong.New(cli,
		kong.Name("leaderaudit"),
		kong.Description("Which Kafka partitions changed leader, when, why, how long each election took on each broker, and which producer errors it caused."),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": version()},
		kong.Writers(io.out, io.err),
		kong.Exit(func(c int) { panic(kongExit(c)) }),
		kong.Bind(io),
	)
}

// run parses args, runs the command and maps what it returns to the exit
// status, in this one place.
func run(args []string, io stdio) (code int) {
	var cli CLI
	parser, err := newParser(&cli, io)
	if err != nil {
		panic(err) // the CLI struct itself is wrong
	}
	defer func() {
		if r := recover(); r != nil {
			c, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = int(c)
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		// A short message and where to look, not the whole help.
		fmt.Fprintf(io.err, "leaderaudit: %s\n", textfmt.Clean(err.Error()))
		var pe *kong.ParseError
		if errors.As(err, &pe) {
			kctx = pe.Context
		}
		fmt.Fprintf(io.err, "Run '%s --help' for usage.\n", commandName(kctx))
		return exitUsage
	}
	code = exitStatus(kctx.Run(), io.err)
	if code == exitUsage {
		fmt.Fprintf(io.err, "Run '%s --help' for usage.\n", commandName(kctx))
	}
	return code
}

// commandName is "leaderaudit" and the command being run, if known.
func commandName(kctx *kong.Context) string {
	if kctx != nil {
		if n := kctx.Selected(); n != nil {
			return "leaderaudit " + n.Name
		}
	}
	return "leaderaudit"
}

// exitStatus maps a command's error to the exit status, saying on stderr
// what went wrong.
func exitStatus(err error, stderr io.Writer) int {
	var ue *usageError
	var in interrupted
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, syscall.EPIPE):
		// Writing into a closed pipe (| head) ends quietly.
		return exitOK
	case errors.Is(err, errFailOn):
		return exitFindings
	case errors.As(err, &in):
		fmt.Fprintln(stderr, "leaderaudit:", err)
		if in.sig == syscall.SIGTERM {
			return exitTerminated
		}
		return exitInterrupted
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "leaderaudit:", textfmt.Clean(err.Error()))
		return exitUsage
	}
	fmt.Fprintln(stderr, "leaderaudit:", textfmt.Clean(err.Error()))
	return exitError
}
