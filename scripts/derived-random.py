#!/usr/bin/env python3
"""Random derived-metric definitions over the fixture archives' sample
metrics, for differential.sh: `derived-random.py SEED N` prints N lines
`z.eI = EXPR` (I from 0), each a random expression of up to four levels
built from every operator, the functions, instance selection, matchinst(),
mkconst() and rescale(), over metrics of every type (and unknown ones).

Left out: what PCP 6.0.3 cannot be compared on. `!` (it leaves half of a
64-bit value as the heap had it), scalar() (it crashes on it inside
expressions), max() and min() (pmval's first sample is uninitialised), and
what 6.0.3 lacks (novalue(), delta() of an expression, meta=, a guard known
at binding choosing the operand bound: ternary guards are relational), and
matchinst() or an instance selection inside a ternary (an operand with
fewer instances than the guard: 6.0.3 reads past its values, printing
instances the heap holds). An
undefined operand of a ternary is reported by us only ("Unknown metric for
ternary expression", differential.sh leaves that line out).

rate() of a counter that went down is not compared: the library gives no
value there (the manual page; README), the tools 6.0.3's, and rate() here
takes a metric name whose only counter, sample.seconds, never goes down in
v2."""

import random
import sys

SCALAR = ['sample.long.one', 'sample.float.ten', 'sample.double.hundred', 'sample.ulonglong.million',
          'sample.seconds', 'pmcd.seqnum', 'pmcd.pid', 'sample.string.hullo', 'sample.nosuch']
SETS = {'sample.bin': ['bin-100', 'bin-500', 'bin-900', 'bin-999'], 'sample.colour': ['red', 'blue', 'x'],
        'sample.dupnames.two.bin': ['bin-300'], 'pmcd.pmlogger.port': ['5044']}
NAMES = SCALAR + list(SETS)
UNITS = ['sec', 'millisec', 'Kbyte', 'byte', 'Mbyte/sec', 'count', 'count x 10^3', '/sec', 'hour']


def main():
    seed, n = int(sys.argv[1]), int(sys.argv[2])
    rnd = random.Random(seed)

    def const():
        c = rnd.random()
        if c < 0.4:
            return str(rnd.choice([0, 1, 2, 3, 7, 10, 100, 1000, 4294967295]))
        if c < 0.7:
            return rnd.choice(['0.5', '1.5', '2.0', '100.25', '0.0'])
        value = rnd.choice(['1', '3', '10', '2.5'])
        specs = []
        if rnd.random() < 0.6 and '.' not in value:
            specs.append('type=' + rnd.choice(['32', 'u32', '64', 'u64', 'float', 'double']))
        if rnd.random() < 0.5:
            specs.append('semantics=' + rnd.choice(['counter', 'instant', 'discrete']))
        if rnd.random() < 0.6 or not specs:
            specs.append('units="%s"' % rnd.choice(UNITS))
        return 'mkconst(%s, %s)' % (value, ', '.join(specs))

    def leaf(known):
        if rnd.random() < 0.55:
            m = rnd.choice([n for n in NAMES if n != 'sample.nosuch'] if known else NAMES)
            if m in SETS and not known and rnd.random() < 0.2:
                return '%s[%s]' % (m, rnd.choice(SETS[m]))
            return m
        return const()

    def expr(depth, known=False):
        # known: inside a ternary, where an undefined name binds lazily by
        # the manual page's rule (i), so our checks go on where 6.0.3
        # stops at the name; no unknown names there
        if depth <= 0 or rnd.random() < 0.25:
            return leaf(known)
        c = rnd.random()
        if c < 0.35:
            return '%s %s %s' % (expr(depth - 1, known), rnd.choice('+-*/'), expr(depth - 1, known))
        if c < 0.5:
            op = rnd.choice(['<', '<=', '==', '>=', '>', '!='])
            return '%s %s %s' % (expr(depth - 1, known), op, expr(depth - 1, known))
        if c < 0.57:
            return '%s %s %s' % (expr(depth - 1, known), rnd.choice(['&&', '||']), expr(depth - 1, known))
        if c < 0.63:
            return '-' + expr(depth - 1, known)
        if c < 0.7:
            return '(%s)' % expr(depth - 1, known)
        if c < 0.78:
            # a guard of a relational operator: never known at binding, so
            # both operands are bound, in 6.0.3 and by the manual page's
            # rule (i) alike
            guard = '(%s) %s %s' % (expr(depth - 1, True), rnd.choice(['!=', '>', '<=']), rnd.choice(['0', '1']))
            return '(%s ? %s : %s)' % (guard, expr(depth - 1, True), expr(depth - 1, True))
        if c < 0.9:
            f = rnd.choice(['avg', 'count', 'sum', 'delta', 'rate', 'instant', 'defined'])
            return '%s(%s)' % (f, rnd.choice([n for n in NAMES if n != 'sample.nosuch'] if known and f != 'defined' else NAMES))
        if c < 0.95 and not known:
            return 'matchinst(%s/%s/, %s)' % (rnd.choice(['', '!']), rnd.choice(['bin-[1-4]', 'red|blue', '^5', '9']),
                                               rnd.choice(list(SETS) + ['sample.bin * 2']))
        return 'rescale(%s, "%s")' % (expr(depth - 1, known), rnd.choice(UNITS))

    for i in range(n):
        print('z.e%d = %s' % (i, expr(rnd.randint(1, 4))))


if __name__ == '__main__':
    main()
