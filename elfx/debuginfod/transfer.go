package debuginfod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coreunwind/coreunwind/elfx"
)

const userAgent = "coreunwind (debuginfod client)"

// requestURL is a server's URL for kind: BASE/BUILDID/debuginfo,
// BASE/BUILDID/executable or BASE/BUILDID/section/NAME. libdebuginfod
// puts the section name in unescaped; it is path-escaped here, which
// changes nothing for real section names.
func requestURL(base string, kind Kind, id, section string) string {
	u := base + "/" + id + "/" + string(kind)
	if kind == KindSection {
		u += "/" + url.PathEscape(section)
	}
	return u
}

// ask sends one request and passes the answer (headers) to ch. Reaching
// no server, or no answer within the timeout, takes the server out of
// the run.
func (c *Client) ask(ctx context.Context, cancel context.CancelCauseFunc, s *server, u string, kind Kind, ch chan<- answer) {
	a := answer{srv: s, ctx: ctx, cancel: cancel, watch: startWatchdog(c.cfg.Timeout, cancel)}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err == nil {
		req.Header.Set("User-Agent", userAgent)
		// Servers answer 406 to what is larger.
		req.Header.Set("X-Debuginfod-Maxsize", strconv.FormatInt(c.cfg.maxSize(kind), 10))
		a.resp, err = c.http.Do(req)
	}
	if err != nil {
		a.err = c.transferError(ctx, s, err)
	}
	ch <- a
}

// transferError says why a transfer failed, and takes the server out of
// the run when the failure is the server's: it timed out or could not be
// reached. Cancelling (another server answered; DEBUGINFOD_MAXTIME) is
// not the server's fault.
func (c *Client) transferError(ctx context.Context, s *server, err error) error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errTimeout):
		err = fmt.Errorf("below 100 KiB/s for %v (DEBUGINFOD_TIMEOUT): %w", c.cfg.Timeout, errTimeout)
		s.markDown(err)
		return err
	case cause != nil:
		return cause
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		// The network failed (refused, unresolvable, reset): the server
		// is out for this run.
		s.markDown(ue.Err)
		return ue.Err
	}
	return err
}

// statusError is the error for an HTTP status other than 200 and 404.
func statusError(resp *http.Response, kind Kind) error {
	switch {
	case resp.StatusCode == http.StatusNotAcceptable:
		return fmt.Errorf("%w (the server says, HTTP 406)", ErrTooLarge)
	case resp.StatusCode == http.StatusServiceUnavailable && kind == KindSection:
		return fmt.Errorf("%w (HTTP 503)", errNoSections)
	}
	return fmt.Errorf("HTTP %s", resp.Status)
}

// receive writes the winning answer's body to target, through a
// temporary file, after checking it: no larger than the limit whatever
// Content-Length says, complete, and for files an ELF object with the
// build ID asked for. Nothing that fails a check enters the cache.
func (c *Client) receive(a *answer, kind Kind, id, target string) error {
	limit := c.cfg.maxSize(kind)
	if a.resp.ContentLength > limit {
		return fmt.Errorf("%w: %d bytes (limit %d; DEBUGINFOD_MAXSIZE sets it)", ErrTooLarge, a.resp.ContentLength, limit)
	}
	tmp, err := c.store.createPartial(target)
	if err != nil {
		return err
	}
	c.progress.begin(a.resp.Request.URL.Host)
	n, err := io.Copy(tmp, io.LimitReader(&countingReader{r: a.resp.Body, watch: a.watch, progress: c.progress}, limit+1))
	c.progress.end()
	switch {
	case err != nil:
		err = c.transferError(a.ctx, a.srv, err)
	case n > limit:
		err = fmt.Errorf("%w: more than %d bytes (DEBUGINFOD_MAXSIZE sets the limit)", ErrTooLarge, limit)
	case n == 0:
		// An empty file would read as a negative cache entry.
		err = errors.New("empty answer")
	default:
		err = verify(tmp, n, kind, id)
	}
	mtime, _ := http.ParseTime(a.resp.Header.Get("Last-Modified"))
	return commitTemp(tmp, target, mtime, err)
}

// verify checks a downloaded file of size bytes: an executable or debug
// file must be ELF and carry the build ID asked for. A section's bytes
// carry no build ID to check. Errors do not name the file: it is a
// partial file, removed when verify fails.
func verify(f *os.File, size int64, kind Kind, id string) error {
	if kind == KindSection {
		return nil
	}
	o, err := elfx.NewObject(f, size, "the file sent")
	if err != nil {
		return err
	}
	got := o.BuildID()
	o.Close()
	if got != id {
		if got == "" {
			return fmt.Errorf("%w: it has no build ID", ErrWrongBuildID)
		}
		return fmt.Errorf("%w: %s", ErrWrongBuildID, got)
	}
	return nil
}

// countingReader tells the watchdog and the progress line how much
// arrived.
type countingReader struct {
	r        io.Reader
	watch    *watchdog
	progress *progress
}

func (cr *countingReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	if n > 0 {
		cr.watch.bytes.Add(int64(n))
		cr.progress.add(int64(n))
	}
	return n, err
}

// watchdog cancels a request whose transfer rate stays below 100 KiB/s
// for the timeout, waiting for the answer included: libdebuginfod's
// CURLOPT_LOW_SPEED_LIMIT/LOW_SPEED_TIME. A stalled or unreachable server
// thus costs the timeout, and a slow but steady one is not cut off.
type watchdog struct {
	bytes atomic.Int64
	done  chan struct{}
	once  sync.Once
}

func startWatchdog(timeout time.Duration, cancel context.CancelCauseFunc) *watchdog {
	w := &watchdog{done: make(chan struct{})}
	if timeout <= 0 {
		return w
	}
	go w.run(timeout, cancel)
	return w
}

func (w *watchdog) run(timeout time.Duration, cancel context.CancelCauseFunc) {
	tick := min(max(timeout/8, 10*time.Millisecond), time.Second)
	t := time.NewTicker(tick)
	defer t.Stop()
	type sample struct {
		at time.Time
		n  int64
	}
	// samples[0] is the start of the window: the newest sample at least
	// timeout old.
	samples := []sample{{time.Now(), 0}}
	need := float64(lowSpeedLimit) * timeout.Seconds()
	for {
		select {
		case <-w.done:
			return
		case now := <-t.C:
			n := w.bytes.Load()
			samples = append(samples, sample{now, n})
			for len(samples) > 1 && now.Sub(samples[1].at) >= timeout {
				samples = samples[1:]
			}
			if now.Sub(samples[0].at) >= timeout && float64(n-samples[0].n) < need {
				cancel(errTimeout)
				return
			}
		}
	}
}

func (w *watchdog) stop() {
	if w != nil {
		w.once.Do(func() { close(w.done) })
	}
}

// progress is the line drawn on a terminal while downloads run: files
// under way and bytes received, redrawn at most ten times a second and
// erased when the last download ends.
type progress struct {
	w      io.Writer
	mu     sync.Mutex
	active int
	bytes  int64
	host   string
	last   time.Time
	drawn  bool
}

func (p *progress) begin(host string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active++
	p.host = host
	p.draw(false)
}

func (p *progress) add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytes += n
	p.draw(false)
}

func (p *progress) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active--
	if p.active == 0 && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
		return
	}
	p.draw(true)
}

func (p *progress) draw(force bool) {
	now := time.Now()
	if p.active == 0 || !force && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	fmt.Fprintf(p.w, "\r\033[Kdebuginfod: downloading %d file(s) from %s, %.1f MiB", p.active, p.host, float64(p.bytes)/(1<<20))
	p.drawn = true
}
