package triagebeam

import "runtime"

// bundlePool analyzes a bundle's files concurrently. A runner may hand a
// worker its whole input as one bundle (prism does, splitting it only as
// it progresses), whose elements the SDK processes one after the other
// on one goroutine: alone, a worker would use one CPU. The pool starts
// each element's work on its own goroutine, at most n at once, and
// passes what they produce back to the bundle's goroutine (the only one
// that may emit) as it starts the next elements, and at the end of the
// bundle (FinishBundle). Every output still belongs to its bundle: a
// bundle that fails or is retried takes all of its elements' outputs
// with it.
type bundlePool struct {
	slots    chan struct{}
	out      chan poolMsg
	inflight int
	err      error
}

type poolMsg struct {
	o    Outcome
	done bool  // the work is over (o is empty)
	err  error // with done: the work's error
}

func newBundlePool(n int) *bundlePool {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return &bundlePool{slots: make(chan struct{}, n), out: make(chan poolMsg, 4*n)}
}

// start runs work once a slot is free, emitting what earlier work
// produced meanwhile. Its error is an earlier work's.
func (p *bundlePool) start(work func(emit func(Outcome)) error, emit func(Outcome)) error {
	for {
		select {
		case p.slots <- struct{}{}:
			p.inflight++
			go func() {
				err := work(func(o Outcome) { p.out <- poolMsg{o: o} })
				p.out <- poolMsg{done: true, err: err}
			}()
			return p.err
		case m := <-p.out:
			p.handle(m, emit)
		}
	}
}

// finish waits for all the work started, emitting what it produces; its
// error is the first work's error, and the pool is ready for another
// bundle.
func (p *bundlePool) finish(emit func(Outcome)) error {
	for p.inflight > 0 {
		p.handle(<-p.out, emit)
	}
	err := p.err
	p.err = nil
	return err
}

func (p *bundlePool) handle(m poolMsg, emit func(Outcome)) {
	if !m.done {
		emit(m.o)
		return
	}
	<-p.slots
	p.inflight--
	if m.err != nil && p.err == nil {
		p.err = m.err
	}
}
