# lines.py prints, as JSON, the line tables of many real code objects and
# the lines this Python itself gives their instructions: co_positions()
# (3.11+), co_lines() (3.10+), dis.findlinestarts() (before 3.10).
# linetable's tests decode the tables and compare. Runs on 3.6+.
import dis
import json
import sys

SAMPLE = '''
import os

def simple(a, b):
    c = a + b
    return c

def gaps(x):
    y = x
''' + '\n' * 300 + '''
    z = y + 1
''' + '\n' * 70000 + '''
    return z

def backwards(a):
    return (a +
            a *
            a)

def loops(n):
    total = 0
    for i in range(n):
        if i % 2:
            total += i
        else:
            total -= 1
    while total > 10:
        total //= 2
    return total

def excepts(f):
    try:
        f()
    except (ValueError, KeyError) as e:
        return str(e)
    finally:
        pass
    with open(os.devnull) as fh:
        fh.read()

class K:
    def method(self, *args, **kw):
        return [a for a in args if a], {k: v for k, v in kw.items()}

    @property
    def prop(self):
        return lambda q: q ** 2

async def coro(xs):
    async for x in xs:
        await x

def gen():
    yield 1
    yield from range(3)

def big():
''' + ''.join('    v%d = %d * 3 + v%d if %d else 0\n' % (i, i, i - 1, i) for i in range(1, 400)) + '''
    return v1
'''

modules = ['inspect', 'argparse', 'dis', 'json.decoder', 'collections', 'asyncio.base_events']


def codes(co):
    yield co
    for c in co.co_consts:
        if hasattr(c, 'co_code'):
            for x in codes(c):
                yield x


def source_codes():
    yield compile(SAMPLE, 'sample.py', 'exec')
    import importlib
    import inspect
    for name in modules:
        try:
            mod = importlib.import_module(name)
            yield compile(inspect.getsource(mod), mod.__file__, 'exec')
        except Exception:
            pass


def describe(co):
    d = {'name': co.co_name, 'first': co.co_firstlineno, 'size': len(co.co_code)}
    if sys.version_info >= (3, 10):
        d['table'] = co.co_linetable.hex()
        d['lines'] = [[s, e, -1 if l is None else l] for s, e, l in co.co_lines()]
    else:
        d['table'] = co.co_lnotab.hex()
        d['starts'] = [[a, l] for a, l in dis.findlinestarts(co)]
    if sys.version_info >= (3, 11):
        d['positions'] = [-1 if p[0] is None else p[0] for p in co.co_positions()]
    return d


out = {'version': list(sys.version_info[:2]), 'codes': []}
for top in source_codes():
    for co in codes(top):
        out['codes'].append(describe(co))
json.dump(out, sys.stdout)
