// Package debuginfod fetches executables, separate debug files and single
// sections by build ID from debuginfod servers, the way elfutils'
// libdebuginfod does, and keeps them in the cache that libdebuginfod
// (gdb, eu-stack, systemd-coredump, ...) shares: files one tool
// downloaded are found by the others.
//
// A Client asks every server in DEBUGINFOD_URLS at once and keeps the
// first good answer; it checks what arrives (an ELF file with the build ID
// asked for, no larger than the limits) before it enters the cache; it
// asks for each build ID once however many cores and modules need it; and
// a server that times out or cannot be reached is not asked again in the
// same run. The package knows nothing about cores: callers pass build IDs.
package debuginfod

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Environment variables libdebuginfod reads, with the same meaning here.
const (
	EnvURLs      = "DEBUGINFOD_URLS"       // servers, separated by spaces
	EnvTimeout   = "DEBUGINFOD_TIMEOUT"    // seconds a transfer may stay below 100 KiB/s
	EnvMaxSize   = "DEBUGINFOD_MAXSIZE"    // largest file accepted, in bytes
	EnvMaxTime   = "DEBUGINFOD_MAXTIME"    // seconds one lookup may take in all
	EnvCachePath = "DEBUGINFOD_CACHE_PATH" // the cache directory
)

// Defaults of libdebuginfod (elfutils 0.188, debuginfod-client.c).
const (
	DefaultTimeout = 90 * time.Second
	// lowSpeedLimit is the transfer rate below which a transfer is
	// failing: libdebuginfod gives curl CURLOPT_LOW_SPEED_LIMIT 100 KiB/s
	// for CURLOPT_LOW_SPEED_TIME = DEBUGINFOD_TIMEOUT seconds.
	lowSpeedLimit = 100 << 10
)

// HardMaxSize bounds any download, whatever DEBUGINFOD_MAXSIZE says: the
// largest debug files of real distributions (libLLVM, Chromium) are a few
// GiB.
const HardMaxSize = 8 << 30

// Limits where the environment sets none. libdebuginfod has none then:
// a server sending an endless body fills the disk up to the hard limit,
// and one trickling just above the low-speed limit holds a run for hours.
// These are what a user would choose: room for the largest files of each
// kind real distributions ship (debug files of libLLVM or Chromium are
// the big ones), and a minute and a half per file, as DEBUGINFOD_TIMEOUT
// allows for an answer to start.
const (
	DefaultMaxTime = 90 * time.Second

	defaultMaxSection    = 128 << 20 // .eh_frame, .debug_frame, .gnu_debugdata of one object
	defaultMaxExecutable = 1 << 30   // executables and libraries as installed (stripped)
	defaultMaxDebuginfo  = 4 << 30   // separate debug files
)

// DefaultMaxSize is the size limit for kind when DEBUGINFOD_MAXSIZE is
// not set.
func DefaultMaxSize(kind Kind) int64 {
	switch kind {
	case KindSection:
		return defaultMaxSection
	case KindExecutable:
		return defaultMaxExecutable
	}
	return defaultMaxDebuginfo
}

// Config says which servers to ask and how. The zero value asks no
// server.
type Config struct {
	// URLs are the servers' base URLs (http, https or file).
	URLs []string
	// Timeout fails a transfer that stays below 100 KiB/s for this long,
	// waiting for an answer included; 0: no limit.
	Timeout time.Duration
	// MaxSize refuses files larger than this many bytes, at most
	// HardMaxSize (0: DefaultMaxSize of the kind asked).
	MaxSize int64
	// MaxTime bounds one lookup, all servers together (0: DefaultMaxTime;
	// negative: no limit).
	MaxTime time.Duration
	// CachePath is the cache directory; "" disables the shared cache
	// (files go to a temporary directory removed by Close).
	CachePath string
}

// ConfigFromEnv reads the configuration from the environment variables
// libdebuginfod reads, with its defaults.
func ConfigFromEnv() Config {
	return configFrom(os.Getenv)
}

func configFrom(getenv func(string) string) Config {
	cfg := Config{
		URLs:      strings.Fields(getenv(EnvURLs)),
		Timeout:   DefaultTimeout,
		CachePath: cachePath(getenv),
	}
	// libdebuginfod parses these with atoi/atol: a malformed value is 0.
	if v := getenv(EnvTimeout); v != "" {
		n, _ := leadingInt(v)
		cfg.Timeout = time.Duration(min(max(n, 0), 1<<31)) * time.Second
	}
	// A value of 0 (or less) is libdebuginfod's "no limit": the hard
	// limit for sizes, none for time. Unset or not a number: the defaults.
	if n, ok := leadingInt(getenv(EnvMaxSize)); ok {
		cfg.MaxSize = HardMaxSize
		if n > 0 {
			cfg.MaxSize = n
		}
	}
	if n, ok := leadingInt(getenv(EnvMaxTime)); ok {
		cfg.MaxTime = -1
		if n > 0 {
			cfg.MaxTime = time.Duration(min(n, 1<<31)) * time.Second
		}
	}
	return cfg
}

// cachePath resolves the cache directory as libdebuginfod 0.188 does:
// $DEBUGINFOD_CACHE_PATH when set; else the legacy $HOME/.debuginfod_client_cache
// when it exists; else $XDG_CACHE_HOME/debuginfod_client, $XDG_CACHE_HOME
// defaulting to $HOME/.cache ($HOME defaulting to /).
func cachePath(getenv func(string) string) string {
	if p := getenv(EnvCachePath); p != "" {
		return p
	}
	home := getenv("HOME")
	if home == "" {
		home = "/"
	}
	legacy := filepath.Join(home, ".debuginfod_client_cache")
	if _, err := os.Stat(legacy); err == nil {
		return legacy
	}
	xdg := getenv("XDG_CACHE_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".cache")
	}
	return filepath.Join(xdg, "debuginfod_client")
}

// leadingInt parses a decimal integer the way C's strtol (and scanf's
// %ld) does: leading white space, an optional sign, digits up to the
// first other character, saturating on overflow. ok is false when there
// are no digits (atoi then gives 0; scanf fails).
func leadingInt(s string) (v int64, ok bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(s[:n], 10, 64)
	if err != nil {
		v = 1<<63 - 1 // only overflow is possible: saturate
	}
	if neg {
		return -v, true
	}
	return v, true
}

// maxSize is the largest file of kind accepted.
func (cfg Config) maxSize(kind Kind) int64 {
	if cfg.MaxSize > 0 {
		return min(cfg.MaxSize, HardMaxSize)
	}
	return DefaultMaxSize(kind)
}

// maxTime is how long one lookup may take (0: no limit).
func (cfg Config) maxTime() time.Duration {
	switch {
	case cfg.MaxTime == 0:
		return DefaultMaxTime
	case cfg.MaxTime < 0:
		return 0
	}
	return cfg.MaxTime
}
