package debuginfod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Errors a lookup may wrap.
var (
	// ErrNoServers: the configuration names no server.
	ErrNoServers = errors.New("no debuginfod server configured (DEBUGINFOD_URLS is empty)")
	// ErrNotFound: every server asked answered that it does not have the
	// file (or the cache says so from an earlier run).
	ErrNotFound = errors.New("not found on any server")
	// ErrTooLarge: the file is larger than DEBUGINFOD_MAXSIZE (or the
	// hard limit), by the server's word or by what arrived.
	ErrTooLarge = errors.New("larger than the size limit")
	// ErrWrongBuildID: what a server sent is not the file asked for.
	ErrWrongBuildID = errors.New("the server sent a file with another build ID")
	// ErrUnreachable: no server could be asked (all timed out or could
	// not be reached earlier in this run).
	ErrUnreachable = errors.New("no server reachable")
	// errTimeout: a transfer stayed below the low-speed limit for the
	// timeout.
	errTimeout = errors.New("timed out")
	// errNoSections: the server cannot serve single sections (older
	// servers answer 503).
	errNoSections = errors.New("server does not serve sections")
)

// Client fetches files by build ID. It is safe for concurrent use; each
// file is fetched once per Client, however many callers ask.
type Client struct {
	cfg     Config
	servers []*server
	http    *http.Client

	storeOnce sync.Once
	store     *cache
	private   string // temporary directory used when the shared cache is not writable

	mu       sync.Mutex
	calls    map[string]*call
	warnings []string

	progress *progress
	// slots bounds the downloads under way at once (a batch of cores may
	// miss hundreds of files).
	slots chan struct{}
}

// maxDownloads is how many files are downloaded at once.
const maxDownloads = 16

// server is one base URL, and why it is no longer asked, if it is not.
type server struct {
	base string // ending in /buildid
	mu   sync.Mutex
	down error
}

func (s *server) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

func (s *server) markDown(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down == nil {
		s.down = err
	}
}

// call is one lookup, shared by every caller asking for the same file.
type call struct {
	done chan struct{}
	path string
	err  error
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	c := &Client{cfg: cfg, calls: map[string]*call{}, slots: make(chan struct{}, maxDownloads)}
	seen := map[string]bool{}
	for _, u := range cfg.URLs {
		base := strings.TrimSuffix(u, "/") + "/buildid"
		if !seen[base] {
			seen[base] = true
			c.servers = append(c.servers, &server{base: base})
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// libdebuginfod takes file:// URLs too: a directory laid out as a
	// server's URL space.
	tr.RegisterProtocol("file", http.NewFileTransport(regularFiles{}))
	c.http = &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("more than 10 redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to %s: only http and https are followed", req.URL.Scheme)
			}
			return nil
		},
	}
	return c
}

// Enabled reports whether the client has a server to ask.
func (c *Client) Enabled() bool { return c != nil && len(c.servers) > 0 }

// SetProgress draws a progress line on w (a terminal) while downloads run.
func (c *Client) SetProgress(w io.Writer) { c.progress = &progress{w: w} }

// Debuginfo returns the path of the separate debug file for the build ID.
func (c *Client) Debuginfo(buildID string) (string, error) {
	return c.fetch(KindDebuginfo, buildID, "")
}

// Executable returns the path of the executable or shared library with
// the build ID.
func (c *Client) Executable(buildID string) (string, error) {
	return c.fetch(KindExecutable, buildID, "")
}

// Section returns the path of a file holding the raw bytes of one section
// (".eh_frame", ".debug_frame", ...) of the build ID's executable or debug
// file. A server that cannot serve sections is asked for the debug file,
// then the executable, and the section is taken from those.
func (c *Client) Section(buildID, name string) (string, error) {
	return c.fetch(KindSection, buildID, name)
}

// Warnings says what went wrong with the client itself (the cache), once.
func (c *Client) Warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.warnings...)
}

// Close removes the temporary directory used when the shared cache could
// not be written. Paths returned before are then gone.
func (c *Client) Close() error {
	if c.private != "" {
		return os.RemoveAll(c.private)
	}
	return nil
}

func (c *Client) warnf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

// fetch is one lookup, once per Client for each file.
func (c *Client) fetch(kind Kind, id, section string) (string, error) {
	id = strings.ToLower(id)
	what := fmt.Sprintf("%s for build ID %s", kind, id)
	if kind == KindSection {
		what = fmt.Sprintf("section %s for build ID %s", section, id)
	}
	if !validBuildID(id) {
		return "", fmt.Errorf("debuginfod: %s: not a build ID", what)
	}
	if kind == KindSection && (section == "" || len(section) > 256 || strings.ContainsRune(section, 0)) {
		return "", fmt.Errorf("debuginfod: %s: not a section name", what)
	}
	key := string(kind) + "/" + id + "/" + section
	c.mu.Lock()
	if cl, ok := c.calls[key]; ok {
		c.mu.Unlock()
		<-cl.done
		return cl.path, cl.err
	}
	cl := &call{done: make(chan struct{})}
	c.calls[key] = cl
	c.mu.Unlock()
	cl.path, cl.err = c.lookup(kind, id, section)
	if cl.err != nil {
		cl.err = fmt.Errorf("debuginfod: %s: %w", what, cl.err)
	}
	close(cl.done)
	return cl.path, cl.err
}

// cache opens the cache on first use: the shared one, or when it cannot
// be written a private temporary directory (with a warning).
func (c *Client) cache() (*cache, error) {
	c.storeOnce.Do(func() {
		if dir := c.cfg.CachePath; dir != "" {
			err := os.MkdirAll(dir, 0o700)
			if err == nil {
				// Writable: the settings file opens for writing.
				var f *os.File
				if f, err = os.OpenFile(filepath.Join(dir, cleanIntervalFile), os.O_CREATE|os.O_RDWR, 0o666); err == nil {
					f.Close()
				}
			}
			if err == nil {
				c.store = &cache{dir: dir, shared: true}
				c.store.removeStalePartials()
				c.store.clean(time.Now())
				return
			}
			c.warnf("debuginfod: cache %s not writable (%v): downloads go to a temporary directory removed at exit", dir, err)
		}
		tmp, err := os.MkdirTemp("", "coreunwind-debuginfod-*")
		if err != nil {
			c.warnf("debuginfod: no cache and no temporary directory: %v", err)
			return
		}
		c.private = tmp
		c.store = &cache{dir: tmp}
	})
	if c.store == nil {
		return nil, errors.New("no cache directory")
	}
	return c.store, nil
}

// lookup answers from the cache, or downloads into it.
func (c *Client) lookup(kind Kind, id, section string) (string, error) {
	if len(c.servers) == 0 {
		// Like libdebuginfod: without a server the cache is not read
		// either.
		return "", ErrNoServers
	}
	store, err := c.cache()
	if err != nil {
		return "", err
	}
	target := store.targetPath(id, kind, section)
	now := time.Now()
	hit, err := store.lookup(target, now)
	if hit {
		return target, nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if kind == KindSection {
		if ok := c.sectionFromCached(store, id, section, target, now); ok {
			return target, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return "", err
	}
	c.slots <- struct{}{}
	err = c.download(kind, id, section, target)
	<-c.slots
	switch {
	case err == nil:
		return target, nil
	case errors.Is(err, ErrNotFound):
		store.recordMiss(target)
	case kind == KindSection && errors.Is(err, errNoSections):
		return c.sectionFromWhole(id, section, target)
	}
	return "", err
}

// sectionFromCached takes a section out of the build ID's debug file or
// executable when the cache already has one (as libdebuginfod does).
func (c *Client) sectionFromCached(store *cache, id, section, target string, now time.Time) bool {
	for _, k := range []Kind{KindDebuginfo, KindExecutable} {
		p := store.targetPath(id, k, "")
		if hit, _ := store.lookup(p, now); hit {
			if ok, err := store.extractSection(p, section, target); ok && err == nil {
				return true
			}
		}
	}
	return false
}

// sectionFromWhole fetches the debug file, then the executable, and
// takes the section from the first that has it with contents.
func (c *Client) sectionFromWhole(id, section, target string) (string, error) {
	var errs []error
	for _, k := range []Kind{KindDebuginfo, KindExecutable} {
		p, err := c.fetch(k, id, "")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ok, err := c.store.extractSection(p, section, target)
		if ok && err == nil {
			return target, nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return "", fmt.Errorf("%w: %w", ErrNotFound, errors.Join(errs...))
}

// answer is one server's response to a request (headers only: the body
// is read by receive).
type answer struct {
	srv    *server
	ctx    context.Context // the request's
	resp   *http.Response
	err    error
	cancel context.CancelCauseFunc
	watch  *watchdog
}

// close releases an answer that is not (or no longer) read.
func (a *answer) close() {
	if a.resp != nil {
		a.resp.Body.Close()
	}
	a.watch.stop()
	a.cancel(errAbandoned)
}

// errAbandoned cancels the requests to the other servers once one
// server's answer is taken.
var errAbandoned = errors.New("another server answered first")

// download asks the servers still up, all at once, and writes the first
// good answer to target. A server whose answer fails midway (cut short,
// wrong file) is dropped and the servers that had not answered yet are
// asked again.
func (c *Client) download(kind Kind, id, section, target string) error {
	ctx := context.Background()
	if d := c.cfg.maxTime(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, fmt.Errorf("gave up after %v (DEBUGINFOD_MAXTIME)", d))
		defer cancel()
	}
	var pending []*server
	var errs []error
	for _, s := range c.servers {
		if err := s.failed(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (earlier in this run: not asked again)", s.base, err))
			continue
		}
		pending = append(pending, s)
	}
	if len(pending) == 0 {
		return fmt.Errorf("%w: %w", ErrUnreachable, errors.Join(errs...))
	}
	notFound := false
	for len(pending) > 0 {
		ch := make(chan answer, len(pending))
		cancels := map[*server]context.CancelCauseFunc{}
		for _, s := range pending {
			rctx, cancel := context.WithCancelCause(ctx)
			cancels[s] = cancel
			go c.ask(rctx, cancel, s, requestURL(s.base, kind, id, section), kind, ch)
		}
		answered := map[*server]bool{}
		var win *answer
		for len(answered) < len(pending) && win == nil {
			a := <-ch
			answered[a.srv] = true
			switch {
			case a.err != nil:
				errs = append(errs, fmt.Errorf("%s: %w", a.srv.base, a.err))
			case a.resp.StatusCode == http.StatusOK:
				win = &a
				continue
			case a.resp.StatusCode == http.StatusNotFound:
				notFound = true
			default:
				errs = append(errs, fmt.Errorf("%s: %w", a.srv.base, statusError(a.resp, kind)))
			}
			a.close()
		}
		if win == nil {
			break
		}
		// Abandon the others: their answers come back cancelled.
		for s, cancel := range cancels {
			if s != win.srv {
				cancel(errAbandoned)
			}
		}
		go func(n int) {
			for ; n > 0; n-- {
				a := <-ch
				a.close()
			}
		}(len(pending) - len(answered))
		err := c.receive(win, kind, id, target)
		win.close()
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", win.srv.base, err))
		var next []*server
		for _, s := range pending {
			if !answered[s] && s.failed() == nil {
				next = append(next, s)
			}
		}
		pending = next
	}
	if notFound && len(errs) == 0 {
		return ErrNotFound
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}
