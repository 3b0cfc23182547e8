#!/usr/bin/env python3
"""The comparison of results/points.csv (run.sh) as Markdown: per fabric and pattern, both tools'
accepted traffic and latency at every load, the ratio of accepted traffic, and the verdicts of
issue 38's targets — saturation throughput (the peak accepted over the loads) within 5 %, every
point past saturation within 10 %. Where a load was run with several seeds, the figures are the
means over the seeds with 95 % confidence intervals (Student's t; for the ratio of the two means,
on its logarithm with the Welch-Satterthwaite degrees of freedom), and the knee of each tool (its
first load accepting less than 0.95 x offered) is located on the load grid. Zero-load latency:
results/zero_load.csv against the formula of docs/SIMULATION.md (8 + 3 x switches crossed,
F = R = 1, P = 8). Environment: RESULTS (the directory), HOTSPOT (run.sh's hot-spot fraction,
default 0.05: hot-spot's analytic bound)."""
import collections, csv, math, os, statistics

here = os.path.dirname(os.path.abspath(__file__))
res = os.environ.get('RESULTS', os.path.join(here, 'results'))
hotspot = float(os.environ.get('HOTSPOT', '0.05'))
points = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
windows = collections.defaultdict(set)
for r in csv.DictReader(open(os.path.join(res, 'points.csv'))):
    group = (int(r['k']), int(r['n']), r['pattern'])
    points[group][float(r['load'])][r['tool']].append(r)
    windows[(group, r['tool'])].add((r.get('warmup_cycles') or '?', r.get('measure_cycles') or '?'))

T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042]


def t975(dof):
    """Student's t quantile 0.975 (two-sided 95 %) for dof degrees of freedom (1.96 past 30)."""
    return T975[max(1, int(dof)) - 1] if dof < 31 else 1.96


def fixed_points(pattern, terminals):
    """Terminals a permutation maps to themselves: silent in routelab, sending to themselves
    (through their leaf switch, never contended) in BookSim2."""
    bits = terminals.bit_length() - 1
    if pattern == 'bit-reversal':
        return sum(1 for t in range(terminals) if int(format(t, f'0{bits}b')[::-1], 2) == t)
    if pattern == 'perfect-shuffle':
        return 2  # all zeros, all ones
    if pattern == 'transpose':
        return 2 ** (bits // 2)  # the diagonal: high half equal to low half
    return 0


class Sample:
    """Per-run values at one load: mean, standard deviation, count, 95 % half-width."""

    def __init__(self, values):
        self.values = values
        self.n = len(values)
        self.mean = statistics.fmean(values)
        self.sd = statistics.stdev(values) if self.n > 1 else 0.0
        self.half = t975(self.n - 1) * self.sd / math.sqrt(self.n) if self.n > 1 else 0.0

    def text(self, fmt):
        return f"{self.mean:{fmt}}" + (f" ± {self.half:{fmt}}" if self.n > 1 else '')


def ratio_interval(a, b):
    """The ratio of two means with its 95 % interval: on log(a/b), standard error from the relative
    variances, Welch-Satterthwaite degrees of freedom; None unless both have several runs."""
    if a.n < 2 or b.n < 2 or a.mean <= 0 or b.mean <= 0:
        return None
    va, vb = (a.sd / a.mean) ** 2 / a.n, (b.sd / b.mean) ** 2 / b.n
    se = math.sqrt(va + vb)
    if se == 0:
        return (a.mean / b.mean,) * 2
    dof = (va + vb) ** 2 / ((va ** 2 / (a.n - 1) if va else 0) + (vb ** 2 / (b.n - 1) if vb else 0))
    t = t975(dof)
    return a.mean / b.mean * math.exp(-t * se), a.mean / b.mean * math.exp(t * se)


def knee(loads, accepted):
    """The first load whose mean accepted traffic is below 0.95 x offered, and the load before it."""
    for i, load in enumerate(loads):
        if accepted[load].mean < 0.95 * load:
            return (loads[i - 1] if i else None), load
    return loads[-1], None


# Long function: one table, its verdicts and the seed statistics per fabric and pattern, in order.
def report(k, n, pattern, by_load):
    loads = sorted(l for l, t in by_load.items() if 'routelab' in t and 'booksim' in t)
    if not loads:
        return
    terminals = k ** n
    fixed = fixed_points(pattern, terminals)
    senders = terminals - fixed
    fmt = '.4f' if pattern == 'hot-spot' else '.3f'
    print(f"\n### {k}-ary {n}-tree ({terminals} terminals), {pattern}\n")
    if fixed:
        print(f"Accepted traffic per sender: the {fixed} fixed points taken out of both tools' figures (BookSim2's "
              f"accept what they offer).\n")
    acc = {'routelab': {}, 'booksim': {}}
    for load in loads:
        acc['routelab'][load] = Sample([float(r['accepted']) * terminals / senders for r in by_load[load]['routelab']])
        acc['booksim'][load] = Sample([(float(b['accepted']) * terminals - fixed * float(b['offered'])) / senders
                                       for b in by_load[load]['booksim']])
    seeded = any(acc[t][l].n > 1 for t in acc for l in loads)
    if seeded:
        print("Several seeds: mean ± the 95 % half-width over the seeds; the ratio of the means with its 95 % "
              "interval.\n")
        print("| load | seeds | routelab accepted | BookSim2 accepted | ratio [95 %] | routelab latency | "
              "BookSim2 latency | routelab Jain |")
        print("|---|---|---|---|---|---|---|---|")
    else:
        print("| load | routelab accepted | BookSim2 accepted | ratio | routelab latency | BookSim2 latency | routelab Jain |")
        print("|---|---|---|---|---|---|---|")
    first_saturated = None
    past = []
    for load in loads:
        rs, bs = by_load[load]['routelab'], by_load[load]['booksim']
        ra, ba = acc['routelab'][load], acc['booksim'][load]
        ratio = ra.mean / ba.mean if ba.mean else float('nan')
        if first_saturated is None and ba.mean < 0.95 * load:
            first_saturated = load  # BookSim's first saturated load
        if first_saturated is not None:
            past.append((load, ratio))
        modes = sorted({b['mode'] for b in bs} - {'latency', '-'})
        mode = f" ({'/'.join(modes)} mode)" if modes else ''
        rlat = statistics.fmean(float(r['latency_avg']) for r in rs)
        blat = statistics.fmean(float(b['latency_avg']) for b in bs)
        jain = statistics.fmean(float(r['source_fairness']) for r in rs)
        if seeded:
            interval = ratio_interval(ra, ba)
            itext = f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else ''
            seeds = f"{ra.n}" if ra.n == ba.n else f"{ra.n} / {ba.n}"
            print(f"| {load:g} | {seeds} | {ra.text(fmt)} | {ba.text(fmt)}{mode} | {ratio:.3f}{itext} | {rlat:.1f} | "
                  f"{blat:.1f} | {jain:.3f} |")
        else:
            print(f"| {load:g} | {ra.mean:{fmt}} | {ba.mean:{fmt}}{mode} | {ratio:.3f} | {rlat:.1f} | {blat:.1f} | "
                  f"{jain:.3f} |")
    win = {t: ', '.join(f"{w} + {m}" for w, m in sorted(windows[((k, n, pattern), t)])) for t in acc}
    print(f"\nWindows (warm-up + measured cycles): routelab {win['routelab']}; BookSim2 {win['booksim']}.")
    peak = {t: max(acc[t][l].mean for l in loads) for t in acc}
    ratio = peak['routelab'] / peak['booksim'] if peak['booksim'] else float('nan')
    print(f"Saturation throughput (peak accepted): routelab {peak['routelab']:{fmt}}, BookSim2 "
          f"{peak['booksim']:{fmt}}, ratio {ratio:.3f} — {'within' if abs(ratio - 1) <= 0.05 else 'NOT within'} 5 %.")
    knees = {t: knee(loads, acc[t]) for t in acc}
    if all(kn[1] is not None for kn in knees.values()):
        text = {t: (f"between {kn[0]:g} and {kn[1]:g}" if kn[0] is not None else f"at or below {kn[1]:g}")
                for t, kn in knees.items()}
        same = knees['routelab'] == knees['booksim']
        line = (f"Knee (the first load accepting < 0.95 × offered): routelab {text['routelab']}, BookSim2 "
                f"{text['booksim']} — {'the same grid interval' if same else 'different grid intervals'}")
        if pattern == 'hot-spot':
            line += f"; the hot spot's ejection link bounds the load at 1 / (F N + 1 − F) = " \
                    f"{1 / (hotspot * terminals + 1 - hotspot):.4f}"
        below = [knees[t][0] for t in acc]
        if all(b is not None for b in below) and below[0] == below[1]:
            at = below[0]
            line += (f". At the last unsaturated load {at:g}: routelab {acc['routelab'][at].mean:{fmt}}, BookSim2 "
                     f"{acc['booksim'][at].mean:{fmt}}, ratio {acc['routelab'][at].mean / acc['booksim'][at].mean:.3f}")
        print(line + '.')
    if past:
        worst = max(past, key=lambda p: abs(p[1] - 1))
        print(f"Past saturation (BookSim's first saturated load {first_saturated:g} and above): worst ratio "
              f"{worst[1]:.3f} at {worst[0]:g} — {'within' if abs(worst[1] - 1) <= 0.10 else 'NOT within'} 10 %.")
        many = [l for l, _ in past if acc['routelab'][l].n > 1 and acc['booksim'][l].n > 1]
        if many:
            pooled = {t: Sample([v for l in many for v in acc[t][l].values]) for t in acc}
            interval = ratio_interval(pooled['routelab'], pooled['booksim'])
            print(f"Past saturation over the seeded loads ({', '.join(f'{l:g}' for l in many)}; "
                  f"{pooled['routelab'].n} runs per tool): routelab {pooled['routelab'].text(fmt)} (sd "
                  f"{pooled['routelab'].sd:{fmt}}), BookSim2 {pooled['booksim'].text(fmt)} (sd "
                  f"{pooled['booksim'].sd:{fmt}}), ratio {pooled['routelab'].mean / pooled['booksim'].mean:.3f} "
                  f"[{interval[0]:.3f}, {interval[1]:.3f}] (95 %).")


for (k, n, pattern), by_load in sorted(points.items()):
    report(k, n, pattern, by_load)

zl = os.path.join(res, 'zero_load.csv')
if os.path.exists(zl):
    print("\n### Zero-load latency (routelab, load 0.002)\n")
    print("| fabric | pattern | average switches S | measured latency | 8 + 3 S |")
    print("|---|---|---|---|---|")
    for r in csv.DictReader(open(zl)):
        s = float(r['average_hops']) - 1  # links crossed minus one: switches crossed
        print(f"| {r['k']}-ary {r['n']}-tree | {r['pattern']} | {s:.3f} | {float(r['latency_avg']):.2f} | {8 + 3 * s:.2f} |")
