package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

const hostileNamesC = `
#include <stdlib.h>
__attribute__((noinline)) void evilXXXXname(void) { abort(); }
int main(void) { evilXXXXname(); return 0; }
`

// badReasonServer answers every request with HTTP 500 and a reason
// phrase holding a terminal escape.
func badReasonServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				for { // the request's header, up to the empty line
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				conn.Write([]byte("HTTP/1.1 500 \x1b]0;owned\x07Oops\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// checkPrintable fails on anything a terminal would act on: control
// characters but the line ends, and bytes that are not UTF-8.
func checkPrintable(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s is not UTF-8:\n%q", what, out)
	}
	for _, c := range []byte(out) {
		if c < 0x20 && c != '\n' || c == 0x7f {
			t.Errorf("%s holds control byte %#x:\n%q", what, c, out)
			return
		}
	}
}

// TestHostileStringsEscaped: a program in a directory and under a name
// with terminal escapes and bytes that are not UTF-8, run with such an
// argument, with such a symbol name (patched into its symbol table),
// crashes; a debuginfod server answers with an escape in its reason
// phrase. The text report and the warnings on stderr print all of it
// escaped; the JSON report keeps the strings exact.
func TestHostileStringsEscaped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d\x1b]0;title\x07")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := testenv.BuildC(t, dir, "p\x1b[2J\xff", hostileNamesC, "-O0")
	image, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(image, []byte("evilXXXXname")) == 0 {
		t.Fatal("symbol name not in the binary")
	}
	// Same length: nothing else in the file moves.
	if err := os.WriteFile(exe, bytes.ReplaceAll(image, []byte("evilXXXXname"), []byte("evil\x1b[2Jname")), 0o755); err != nil {
		t.Fatal(err)
	}
	raw, _ := testenv.CrashIn(t, dir, "./"+filepath.Base(exe), nil, "\x1b[31mred\xff")
	core := filepath.Join(t.TempDir(), "core")
	if err := os.Rename(raw, core); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DEBUGINFOD_URLS", badReasonServer(t))
	t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())

	code, stdout, stderr := runCLI(core)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkPrintable(t, "the text report", stdout)
	checkPrintable(t, "stderr", stderr)
	for _, want := range []string{`command:     ./p\x1b[2J\xff \x1b[31mred\xff`, `evil\x1b[2Jname`, `d\x1b]0;title\a/p\x1b[2J\xff`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text report lacks %s:\n%s", want, stdout)
		}
	}
	// A text report on stdout carries its warnings itself (each is said
	// once: TestWarningsOnce).
	if !strings.Contains(stdout, `500 \x1b]0;owned\aOops`) {
		t.Errorf("the text report's warnings lack the server's reason phrase, escaped:\n%s", stdout)
	}

	code, stdout, stderr = runCLI("--format", "json", core)
	if code != exitcode.OK {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	// With JSON on stdout the warnings go to stderr, escaped there.
	checkPrintable(t, "stderr of the JSON run", stderr)
	if !strings.Contains(stderr, `500 \x1b]0;owned\aOops`) {
		t.Errorf("stderr of the JSON run lacks the server's reason phrase, escaped:\n%s", stderr)
	}
	var rep struct {
		Core struct {
			CommandLine string `json:"command_line"`
			Executable  string
		}
		Threads []struct {
			Frames []struct{ Function string }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	// JSON keeps control characters exact; a byte that is not UTF-8 is
	// U+FFFD there, as in every JSON encoder.
	if rep.Core.CommandLine != "./p\x1b[2J\ufffd \x1b[31mred\ufffd" || rep.Core.Executable != strings.ToValidUTF8(exe, "\ufffd") {
		t.Errorf("JSON command line %q, executable %q", rep.Core.CommandLine, rep.Core.Executable)
	}
	found := false
	for _, th := range rep.Threads {
		for _, f := range th.Frames {
			found = found || f.Function == "evil\x1b[2Jname"
		}
	}
	if !found {
		t.Errorf("JSON frames lack the function evil\\x1b[2Jname: %+v", rep.Threads)
	}
}
