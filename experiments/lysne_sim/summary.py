#!/usr/bin/env python3
"""Tables of the Lysne simulations (results/points-*.csv), printed as Markdown: per size, traffic
and engine, the peak of the topology-averaged accepted traffic over the loads, LASH's ratio to
it, and per topology how often each engine has the highest peak."""
import collections, csv, glob, os

res = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results')
rows = [r for f in sorted(glob.glob(os.path.join(res, 'points-*.csv'))) for r in csv.DictReader(open(f))]
engines = ['lash', 'd-mroots', 'updown-dfs', 'updown', 'updown-dfs-1vc']
mean = collections.defaultdict(list)
per_topo = collections.defaultdict(dict)
for r in rows:
    key = (int(r['switches']), r['pattern'], r['engine'])
    mean[key + (float(r['load']),)].append(float(r['accepted']))
    t = per_topo[(int(r['switches']), r['pattern'], r['topology'])]
    t[r['engine']] = max(t.get(r['engine'], 0), float(r['accepted']))
peak = collections.defaultdict(float)
for (s, p, e, l), v in mean.items():
    peak[(s, p, e)] = max(peak[(s, p, e)], sum(v) / len(v))
sizes = sorted({k[0] for k in peak})
print("| switches | traffic | topologies | VCs (LASH layers) | " + " | ".join(engines) + " | LASH / D-MROOTS | LASH / UpDown-DFS |")
print("|---|---|---|---|" + "---|" * (len(engines) + 2))
for s in sizes:
    layers = sorted({r['layers'] for r in rows if int(r['switches']) == s})
    for p in ['uniform', 'pairwise']:
        topos = len({r['topology'] for r in rows if int(r['switches']) == s and r['pattern'] == p})
        cells = [f"{peak[(s, p, e)]:.3f}" if (s, p, e) in peak else '—' for e in engines]
        ratio = lambda e: f"{peak[(s, p, 'lash')] / peak[(s, p, e)]:.2f}" if (s, p, e) in peak else '—'
        print(f"| {s} | {p} | {topos} | {','.join(layers)} | " + " | ".join(cells) + f" | {ratio('d-mroots')} | {ratio('updown-dfs')} |")
print()
print("Per topology (peak accepted over the loads): LASH ≥ D-MROOTS and D-MROOTS > UpDown-DFS (1 VC) counts.")
print()
print("| switches | traffic | LASH ≥ D-MROOTS | D-MROOTS > UpDown-DFS | D-MROOTS > UpDown-DFS (1 VC) | LASH > UpDown-DFS |")
print("|---|---|---|---|---|---|")
for s in sizes:
    for p in ['uniform', 'pairwise']:
        ts = [t for (ss, pp, _), t in per_topo.items() if ss == s and pp == p]
        def count(a, b, ge=False):
            ok = [t for t in ts if a in t and b in t]
            return f"{sum((t[a] >= t[b]) if ge else (t[a] > t[b]) for t in ok)}/{len(ok)}" if ok else '—'
        print(f"| {s} | {p} | {count('lash', 'd-mroots', True)} | {count('d-mroots', 'updown-dfs')} | "
              f"{count('d-mroots', 'updown-dfs-1vc')} | {count('lash', 'updown-dfs')} |")
print()
deadlocks = sum(r['deadlock'] == 'true' for r in rows)
print(f"Runs: {len(rows)}, deadlocks reported: {deadlocks}.")
