#!/usr/bin/env python3
"""The comparison of results/points.csv (run.sh) as Markdown: per fabric and pattern, both tools'
accepted traffic and latency at every load, the ratio of accepted traffic, and the verdicts of
issue 38's targets — saturation throughput (the peak accepted over the loads) within 5 %, every
point past saturation within 10 %. Zero-load latency: results/zero_load.csv against the
formula of docs/SIMULATION.md (8 + 3 x switches crossed, F = R = 1, P = 8)."""
import collections, csv, os

here = os.path.dirname(os.path.abspath(__file__))
res = os.environ.get('RESULTS', os.path.join(here, 'results'))
points = collections.defaultdict(dict)
for r in csv.DictReader(open(os.path.join(res, 'points.csv'))):
    points[(int(r['k']), int(r['n']), r['pattern'])].setdefault(float(r['load']), {})[r['tool']] = r

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


for (k, n, pattern), by_load in sorted(points.items()):
    loads = sorted(l for l, t in by_load.items() if 'routelab' in t and 'booksim' in t)
    if not loads:
        continue
    terminals = k ** n
    fixed = fixed_points(pattern, terminals)
    senders = terminals - fixed
    print(f"\n### {k}-ary {n}-tree ({terminals} terminals), {pattern}\n")
    if fixed:
        print(f"Accepted traffic per sender: the {fixed} fixed points taken out of both tools' figures (BookSim2's "
              f"accept what they offer).\n")
    print("| load | routelab accepted | BookSim2 accepted | ratio | routelab latency | BookSim2 latency | routelab Jain |")
    print("|---|---|---|---|---|---|---|")
    peak = {'routelab': 0.0, 'booksim': 0.0}
    knee = None
    past = []
    for load in loads:
        r, b = by_load[load]['routelab'], by_load[load]['booksim']
        ra = float(r['accepted']) * terminals / senders
        ba = (float(b['accepted']) * terminals - fixed * float(b['offered'])) / senders
        peak['routelab'] = max(peak['routelab'], ra)
        peak['booksim'] = max(peak['booksim'], ba)
        if knee is None and ba < 0.95 * load:
            knee = load  # BookSim's first saturated load
        if knee is not None:
            past.append((load, ra / ba if ba > 0 else float('inf')))
        mode = '' if b['mode'] in ('latency', '-') else f" ({b['mode']} mode)"
        print(f"| {load:g} | {ra:.3f} | {ba:.3f}{mode} | {ra / ba if ba else float('nan'):.3f} | "
              f"{float(r['latency_avg']):.1f} | {float(b['latency_avg']):.1f} | {float(r['source_fairness']):.3f} |")
    ratio = peak['routelab'] / peak['booksim'] if peak['booksim'] else float('nan')
    print(f"\nSaturation throughput (peak accepted): routelab {peak['routelab']:.3f}, BookSim2 {peak['booksim']:.3f}, "
          f"ratio {ratio:.3f} — {'within' if abs(ratio - 1) <= 0.05 else 'NOT within'} 5 %.")
    if past:
        worst = max(past, key=lambda p: abs(p[1] - 1))
        print(f"Past saturation (BookSim's first saturated load {knee:g} and above): worst ratio {worst[1]:.3f} at "
              f"{worst[0]:g} — {'within' if abs(worst[1] - 1) <= 0.10 else 'NOT within'} 10 %.")

zl = os.path.join(res, 'zero_load.csv')
if os.path.exists(zl):
    print("\n### Zero-load latency (routelab, load 0.002)\n")
    print("| fabric | pattern | average switches S | measured latency | 8 + 3 S |")
    print("|---|---|---|---|---|")
    for r in csv.DictReader(open(zl)):
        s = float(r['average_hops']) - 1  # links crossed minus one: switches crossed
        print(f"| {r['k']}-ary {r['n']}-tree | {r['pattern']} | {s:.3f} | {float(r['latency_avg']):.2f} | {8 + 3 * s:.2f} |")
