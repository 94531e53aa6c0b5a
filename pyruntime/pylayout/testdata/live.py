# live.py checks a pylayout.Layout (JSON on stdin) against the memory of
# the Python running it, through ctypes: each member's offset must find
# what the interpreter itself says is there (the id of an attribute, the
# thread's ident, the GIL held by this thread, ...). It prints a JSON
# object from each checked member ("Thread.ThreadID") to "" or what was
# wrong. Runs on 3.6+.
import ctypes
import json
import sys
import threading

L = json.load(sys.stdin)
V = sys.version_info[:2]
results = {}


def present(path):
    s, m = path.split('.')
    return L[s][m] >= 0


def off(path):
    s, m = path.split('.')
    return L[s][m]


def check(path, got, want):
    if not present(path):
        return
    if got == want:
        results.setdefault(path, '')
    else:
        results[path] = 'got %r, want %r' % (got, want)


def ptr(addr):
    return ctypes.c_void_p.from_address(addr).value or 0


def i32(addr):
    return ctypes.c_int.from_address(addr).value


def ulong(addr):
    return ctypes.c_ulong.from_address(addr).value


def u32(addr):
    return ctypes.c_uint32.from_address(addr).value


def at(base, path):
    return base + off(path)


get_tstate = ctypes.pythonapi.PyThreadState_Get
get_tstate.restype = ctypes.c_void_p
tstate = get_tstate()

# Objects.
o = object()
check('Object.Type', ptr(at(id(o), 'Object.Type')), id(object))
before = ctypes.c_ssize_t.from_address(at(id(o), 'Object.Refcnt')).value
keep = [o, o]
check('Object.Refcnt', ctypes.c_ssize_t.from_address(at(id(o), 'Object.Refcnt')).value, before + 2)
check('Object.VarSize', ctypes.c_ssize_t.from_address(at(id((1, 2, 3)), 'Object.VarSize')).value, 3)
check('Type.Name', ctypes.string_at(ptr(at(id(int), 'Type.Name'))), b'int')
check('Type.Flags', ulong(at(id(int), 'Type.Flags')), int.__flags__)
t = ('x', 'y')
check('Tuple.Item', ptr(at(id(t), 'Tuple.Item')), id(t[0]))
check('Tuple.Size', ctypes.c_ssize_t.from_address(at(id(t), 'Tuple.Size')).value, 2)
b = b'hello bytes'
check('Bytes.Sval', ctypes.string_at(at(id(b), 'Bytes.Sval'), len(b)), b)
check('Bytes.Size', ctypes.c_ssize_t.from_address(at(id(b), 'Bytes.Size')).value, len(b))
e = ValueError('message', 2)
check('Exception.Args', ptr(at(id(e), 'Exception.Args')), id(e.args))

# Strings: kind, compactness, ASCII-ness, length and characters.
U = L['Unicode']
for s, kind, enc in (('ascii text', 1, 'ascii'), ('caf\xe9', 1, 'latin-1'), ('\u20ac uro', 2, 'utf-16-le'), ('\U0001f600!', 4, 'utf-32-le')):
    state = u32(id(s) + U['State'])
    got_kind = (state & U['KindMask']) >> ((U['KindMask'] & -U['KindMask']).bit_length() - 1)
    check('Unicode.KindMask', got_kind, kind)
    check('Unicode.CompactMask', bool(state & U['CompactMask']), True)
    check('Unicode.ASCIIMask', bool(state & U['ASCIIMask']), enc == 'ascii')
    if U['ReadyMask']:
        check('Unicode.ReadyMask', bool(state & U['ReadyMask']), True)
    check('Unicode.Length', ctypes.c_ssize_t.from_address(id(s) + U['Length']).value, len(s))
    data = id(s) + (U['ASCIISize'] if enc == 'ascii' else U['CompactSize'])
    path = 'Unicode.ASCIISize' if enc == 'ascii' else 'Unicode.CompactSize'
    check(path, ctypes.string_at(data, len(s) * kind), s.encode(enc))
    check('Unicode.State', bool(state & U['CompactMask']), True)


# Code objects.
def sample(a, b=1):
    return a + b


co = sample.__code__
check('Code.Filename', ptr(at(id(co), 'Code.Filename')), id(co.co_filename))
check('Code.Name', ptr(at(id(co), 'Code.Name')), id(co.co_name))
if V >= (3, 11):
    check('Code.Qualname', ptr(at(id(co), 'Code.Qualname')), id(co.co_qualname))
    adaptive = ctypes.string_at(at(id(co), 'Code.CodeAdaptive'), 2)
    check('Code.CodeAdaptive', adaptive, co.co_code[:2])
    check('Code.Size', off('Code.Size'), off('Code.CodeAdaptive'))
check('Code.FirstLineno', i32(at(id(co), 'Code.FirstLineno')), co.co_firstlineno)
check('Code.Argcount', i32(at(id(co), 'Code.Argcount')), co.co_argcount)
if V >= (3, 10):
    check('Code.Linetable', ptr(at(id(co), 'Code.Linetable')), id(co.co_linetable))
else:
    check('Code.Lnotab', ptr(at(id(co), 'Code.Lnotab')), id(co.co_lnotab))
if V < (3, 11):
    check('Code.CodeBytes', ptr(at(id(co), 'Code.CodeBytes')), id(co.co_code))


# The runtime, the interpreter and the GIL this thread holds.
api = ctypes.pythonapi
for fn in (api.PyInterpreterState_Head, api.PyInterpreterState_ThreadHead):
    fn.restype = ctypes.c_void_p
api.PyInterpreterState_ThreadHead.argtypes = [ctypes.c_void_p]
interp = api.PyInterpreterState_Head()
check('Thread.Interp', ptr(tstate + off('Thread.Interp')), interp)
if present('Runtime.InterpretersHead'):
    runtime = ctypes.addressof(ctypes.c_char.in_dll(api, '_PyRuntime'))
    check('Runtime.InterpretersHead', ptr(at(runtime, 'Runtime.InterpretersHead')), interp)
    check('Runtime.InterpretersMain', ptr(at(runtime, 'Runtime.InterpretersMain')), interp)
    check('Runtime.Finalizing', ptr(at(runtime, 'Runtime.Finalizing')), 0)
    check('Runtime.TstateCurrent', ptr(at(runtime, 'Runtime.TstateCurrent')), tstate)
    check('Interp.Next', ptr(at(interp, 'Interp.Next')), 0)
    check('Interp.ID', ctypes.c_int64.from_address(at(interp, 'Interp.ID')).value, 0)
    if present('Runtime.GIL'):
        gil = at(runtime, 'Runtime.GIL')
        check('Runtime.GIL', i32(gil + off('GIL.Locked')), 1)
    else:
        gil = ptr(at(interp, 'Interp.GIL'))
        check('Interp.GIL', gil != 0, True)
    check('GIL.Locked', i32(gil + off('GIL.Locked')), 1)
    check('GIL.LastHolder', ptr(gil + off('GIL.LastHolder')), tstate)

# Every thread state of the interpreter, with its ids.
ready, done = threading.Event(), threading.Event()


def other():
    ready.set()
    done.wait()


th = threading.Thread(target=other)
th.start()
ready.wait()
head = api.PyInterpreterState_ThreadHead(interp)
if present('Interp.ThreadsHead'):
    check('Interp.ThreadsHead', ptr(at(interp, 'Interp.ThreadsHead')), head)
ids, prev, ts = {}, 0, head
while ts and len(ids) < 100:
    check('Thread.Prev', ptr(ts + off('Thread.Prev')), prev)
    native = ulong(ts + off('Thread.NativeThreadID')) if present('Thread.NativeThreadID') else None
    ids[ulong(ts + off('Thread.ThreadID'))] = native
    prev, ts = ts, ptr(ts + off('Thread.Next'))
check('Thread.Next', len(ids), 2)
check('Thread.ThreadID', sorted(ids), sorted([threading.get_ident(), th.ident]))
if V >= (3, 8):
    check('Thread.NativeThreadID', ids.get(th.ident), th.native_id)
done.set()
th.join()
if present('Thread.DatastackChunk'):
    check('Thread.DatastackChunk', ptr(tstate + off('Thread.DatastackChunk')) != 0, True)


# The exception being handled.
try:
    raise KeyError('handled')
except KeyError as handled:
    if present('Thread.ExcInfo'):
        item = ptr(tstate + off('Thread.ExcInfo'))
        check('Thread.ExcInfo', item != 0, True)
        check('ErrStackItem.ExcValue', ptr(item + off('ErrStackItem.ExcValue')), id(handled))
        if present('ErrStackItem.ExcType'):
            check('ErrStackItem.ExcType', ptr(item + off('ErrStackItem.ExcType')), id(KeyError))
            check('ErrStackItem.ExcTraceback', ptr(item + off('ErrStackItem.ExcTraceback')), id(handled.__traceback__))
        check('ErrStackItem.PreviousItem', ptr(item + off('ErrStackItem.PreviousItem')) != 0 or item == tstate + off('Thread.ExcState'), True)


# The frame chain from the thread state.
# The frame running reads_frame(): read with no Python call in between
# (from_address and value are C), so that the frame is the caller's.
CUR, CF, FR = off('Thread.CurrentFrame'), off('Thread.CFrame'), off('Thread.Frame')
CFCUR = L['CFrame']['CurrentFrame']


def frames(probe):
    if CUR >= 0:
        f = ctypes.c_void_p.from_address(tstate + CUR).value
    elif CF >= 0:
        f = ctypes.c_void_p.from_address(ctypes.c_void_p.from_address(tstate + CF).value + CFCUR).value
    else:
        f = ctypes.c_void_p.from_address(tstate + FR).value
    me = sys._getframe()
    if V >= (3, 11):
        F = L['Frame']
        for path in ('Thread.CurrentFrame', 'Thread.CFrame', 'CFrame.CurrentFrame'):
            check(path, ptr(f + F['Code']), id(frames.__code__))
        check('Frame.Code', ptr(f + F['Code']), id(frames.__code__))
        check('Frame.Localsplus', ptr(f + F['Localsplus']), id(probe))
        check('Frame.Owner', ctypes.c_byte.from_address(f + F['Owner']).value, F['OwnerThread'])
        check('FrameObject.Frame', ptr(id(me) + off('FrameObject.Frame')), f)
        instr = ptr(f + (F['PrevInstr'] if F['PrevInstr'] >= 0 else F['InstrPtr']))
        start = id(frames.__code__) + off('Code.CodeAdaptive')
        check('Frame.PrevInstr' if F['PrevInstr'] >= 0 else 'Frame.InstrPtr', start <= instr < start + len(frames.__code__.co_code), True)
        caller = ptr(f + F['Previous'])
        check('Frame.Previous', ptr(caller + F['Code']), id(sys._getframe(1).f_code))
        if present('Frame.IsEntry'):
            check('Frame.IsEntry', ctypes.c_bool.from_address(f + F['IsEntry']).value, False)
        # The bottom of the chain: the frame the evaluator was entered with.
        last, n = f, 0
        while ptr(last + F['Previous']) and n < 1000:
            last, n = ptr(last + F['Previous']), n + 1
        if present('Frame.IsEntry'):
            check('Frame.IsEntry', ctypes.c_bool.from_address(last + F['IsEntry']).value, True)
        if F['OwnerCStack'] >= 0:
            check('Frame.OwnerCStack', ctypes.c_byte.from_address(last + F['Owner']).value, F['OwnerCStack'])
    else:
        check('Thread.Frame', f, id(me))
        check('FrameObject.Code', ptr(f + off('FrameObject.Code')), id(frames.__code__))
        caller = ptr(f + off('FrameObject.Back'))
        check('FrameObject.Back', caller, id(me.f_back))
        lasti = i32(caller + off('FrameObject.Lasti'))
        check('FrameObject.Lasti', lasti * (2 if V >= (3, 10) else 1), me.f_back.f_lasti)


def generator():
    if CUR >= 0:
        f = ctypes.c_void_p.from_address(tstate + CUR).value
    else:
        f = ctypes.c_void_p.from_address(ctypes.c_void_p.from_address(tstate + CF).value + CFCUR).value
    F = L['Frame']
    check('Frame.OwnerGenerator', ctypes.c_byte.from_address(f + F['Owner']).value, F['OwnerGenerator'])
    yield 1


def outlived():
    return sys._getframe()


def outlive():
    # A frame object outliving its frame owns a copy of it, and links to
    # its caller's frame object.
    fo = outlived()
    check('FrameObject.Back', ptr(id(fo) + off('FrameObject.Back')), id(sys._getframe()))
    copy = ptr(id(fo) + off('FrameObject.Frame'))
    F = L['Frame']
    check('Frame.OwnerFrameObject', ctypes.c_byte.from_address(copy + F['Owner']).value, F['OwnerFrameObject'])


frames(object())
if V >= (3, 11):
    list(generator())
    outlive()

json.dump(results, sys.stdout)
