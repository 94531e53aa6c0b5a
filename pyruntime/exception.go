package pyruntime

// Exception is an exception object a thread holds.
type Exception struct {
	// Type is its type's name (tp_name: "ValueError", a class's name).
	Type string
	// Message is its str() when that is its single str argument
	// (raise ValueError("bad")): "" otherwise.
	Message string
	// Handled: the thread is in an except block handling it (exc_info),
	// not raising it (the error indicator).
	Handled bool
}

// exception reads the exception the thread state at tstate is raising,
// else the one it handles; nil for none.
func (r *Reader) exception(mem Memory, tstate uint64) *Exception {
	l := r.layout
	raised := l.Thread.CurrentException // 3.12+
	if !raised.Present() {
		raised = l.Thread.CurExcValue
	}
	if v, err := r.field(mem, tstate, raised); err == nil && v != 0 {
		if e := r.exceptionObject(mem, v); e != nil {
			return e
		}
	}
	info, err := r.field(mem, tstate, l.Thread.ExcInfo)
	if err != nil || info == 0 {
		return nil
	}
	v, err := r.field(mem, info, l.ErrStackItem.ExcValue)
	if err != nil || v == 0 {
		return nil
	}
	e := r.exceptionObject(mem, v)
	if e != nil {
		e.Handled = true
	}
	return e
}

// exceptionObject reads the exception object at addr; nil when its type
// cannot be read or it is None (no exception being handled).
func (r *Reader) exceptionObject(mem Memory, addr uint64) *Exception {
	l := r.layout
	if none, ok := r.b.Symbols[SymNone]; ok && addr == none+r.b.Bias {
		return nil
	}
	typ, err := r.field(mem, addr, l.Object.Type)
	if err != nil || typ == 0 {
		return nil
	}
	name, err := r.field(mem, typ, l.Type.Name)
	if err != nil {
		return nil
	}
	e := &Exception{}
	if e.Type, err = r.cString(mem, name); err != nil || e.Type == "" {
		return nil
	}
	// A single str argument is the message.
	args, err := r.field(mem, addr, l.Exception.Args)
	if err != nil || r.checkType(mem, args, SymTupleType) != nil {
		return e
	}
	if n, err := r.field(mem, args, l.Tuple.Size); err != nil || n != 1 {
		return e
	}
	if arg, err := r.field(mem, args, l.Tuple.Item); err == nil {
		e.Message, _ = r.str(mem, arg)
	}
	return e
}

// SymNone is the None object: exc_info holds it where nothing is handled.
const SymNone = "_Py_NoneStruct"
