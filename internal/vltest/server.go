// Package vltest runs a real VictoriaLogs for the tests and the benchmark,
// and ingests log files into it the way a shipper would (one row per
// record, multi-line records joined, the file's broker or client and
// name as stream fields, the byte offset as log.offset).
package vltest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the VictoriaLogs release the tests run against.
const Version = "v1.52.1"

// Module builds the single-node server.
const Module = "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs"

// Environment: EnvBinary names a victoria-logs binary (.ci/run builds one
// and sets it); EnvRequire=1 makes a missing server a failure instead of
// a skip (CI must never skip these tests).
const (
	EnvBinary  = "LEADERAUDIT_VLOGS_BIN"
	EnvRequire = "LEADERAUDIT_REQUIRE_VLOGS"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Binary finds the server: $LEADERAUDIT_VLOGS_BIN, else one built once
// with go install into the user cache directory (about 30 s the first
// time; the module proxy must be reachable). Without either the test is
// skipped with a loud message, or fails under LEADERAUDIT_REQUIRE_VLOGS=1.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(EnvBinary); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v", EnvBinary, p, err)
		}
		return p
	}
	buildOnce.Do(func() { buildPath, buildErr = build() })
	if buildErr != nil {
		msg := fmt.Sprintf("NO VICTORIALOGS: %s is unset and building it failed: %v\n(set %s to a victoria-logs binary, or run: GOBIN=/tmp/vlbin go install %s@%s)", EnvBinary, buildErr, EnvBinary, Module, Version)
		if os.Getenv(EnvRequire) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return buildPath
}

func build() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "leaderaudit", "victoria-logs-"+Version)
	bin := filepath.Join(dir, "victoria-logs")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	// go test puts its own Go first in PATH.
	cmd := exec.Command("go", "install", Module+"@"+Version)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install: %w: %s", err, bytes.TrimSpace(out))
	}
	return bin, nil
}

// Server is a running VictoriaLogs.
type Server struct {
	Addr string // 127.0.0.1:PORT
	URL  string // http://127.0.0.1:PORT
	cmd  *exec.Cmd
	log  *bytes.Buffer
	done chan struct{}
}

// Start runs the server on a free loopback port with a temporary data
// directory and a retention of 100 years (by default it drops lines older
// than 7 days, silently for queries, and the bundled incidents are from
// 2017-2024); it is stopped when the test ends.
func Start(t testing.TB, flags ...string) *Server {
	t.Helper()
	s, err := StartBinary(Binary(t), t.TempDir(), flags...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// StartBinary starts bin with its data in dir.
func StartBinary(bin, dir string, flags ...string) (*Server, error) {
	var lastErr error
	for range 5 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		addr := l.Addr().String()
		l.Close()
		s := &Server{Addr: addr, URL: "http://" + addr, log: &bytes.Buffer{}, done: make(chan struct{})}
		args := append([]string{
			"-httpListenAddr=" + addr, "-storageDataPath=" + filepath.Join(dir, "vlogs-data"),
			"-retentionPeriod=100y", "-loggerLevel=WARN",
		}, flags...)
		s.cmd = exec.Command(bin, args...)
		s.cmd.Stdout, s.cmd.Stderr = &syncWriter{w: s.log}, &syncWriter{w: s.log}
		if err := s.cmd.Start(); err != nil {
			return nil, err
		}
		go func() { s.cmd.Wait(); close(s.done) }()
		if lastErr = s.waitHealthy(30 * time.Second); lastErr == nil {
			return s, nil
		}
		s.Stop()
	}
	return nil, lastErr
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *syncWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(b)
}

func (s *Server) waitHealthy(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("victoria-logs exited at start: %s", s.Log())
		default:
		}
		resp, err := http.Get(s.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("victoria-logs: /health did not answer within " + limit.String())
}

// Log is what the server wrote.
func (s *Server) Log() string {
	w := s.cmd.Stdout.(*syncWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(s.log.String())
}

// Stop ends the server (SIGINT, then kill after 10 s).
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// Flush makes everything ingested so far visible to queries at once
// (VictoriaLogs otherwise shows new rows within about a second).
func (s *Server) Flush(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/internal/force_flush", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("force_flush: %s", resp.Status)
	}
	return nil
}

// Cluster is VictoriaLogs in cluster mode: the same binary as vlstorage
// nodes, and in front of them one node with -storageNode that serves
// /insert (vlinsert) and /select (vlselect).
type Cluster struct {
	Front   *Server
	Storage []*Server
}

// StartCluster runs storage vlstorage nodes and a vlinsert+vlselect node
// in front of them (with frontFlags, e.g. -search.allowPartialResponse);
// all are stopped when the test ends.
func StartCluster(t testing.TB, storage int, frontFlags ...string) *Cluster {
	t.Helper()
	bin := Binary(t)
	c := &Cluster{}
	var nodes []string
	for i := range storage {
		s, err := StartBinary(bin, filepath.Join(t.TempDir(), fmt.Sprint("storage-", i)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		c.Storage = append(c.Storage, s)
		nodes = append(nodes, s.Addr)
	}
	f, err := StartBinary(bin, t.TempDir(), append([]string{"-storageNode=" + strings.Join(nodes, ",")}, frontFlags...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Stop)
	c.Front = f
	return c
}

// Flush makes what the storage nodes hold searchable.
func (c *Cluster) Flush(ctx context.Context) error {
	for _, s := range c.Storage {
		if err := s.Flush(ctx); err != nil {
			return err
		}
	}
	return nil
}
