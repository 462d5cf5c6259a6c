package main

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// What a command returns keeps the error it wraps, so exitStatus (and any
// caller) can ask errors.Is: a profile that cannot be created is
// fs.ErrNotExist under its flag's name, not a flattened string.
func TestCommandErrorsKeepTheirChain(t *testing.T) {
	for _, args := range [][]string{
		{"audit", "--tz", "UTC", "--cpuprofile", "does-not-exist/cpu.out", "../../testdata/incidents/worked-0.10.2"},
		{"audit", "--tz", "UTC", "--memprofile", "does-not-exist/mem.out", "../../testdata/incidents/worked-0.10.2"},
	} {
		var c CLI
		var out, errb bytes.Buffer
		p, err := newParser(&c, stdio{strings.NewReader(""), &out, &errb})
		if err != nil {
			t.Fatal(err)
		}
		kctx, err := p.Parse(args)
		if err != nil {
			t.Fatal(err)
		}
		err = kctx.Run()
		if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), args[3]+": ") {
			t.Errorf("%s: %v (is fs.ErrNotExist: %v)", args[3], err, errors.Is(err, fs.ErrNotExist))
		}
		if code := exitStatus(err, &errb); code != exitError {
			t.Errorf("%s: exit %d", args[3], code)
		}
	}
}
