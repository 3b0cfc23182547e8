#!/usr/bin/env python3
"""Tables of the Gómez simulations from results/*.csv (printed as Markdown): per curve, the peak
accepted traffic and the latency at a few loads; the saturation bisections; the trace times."""
import collections, csv, os, sys

res = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results')


def rows(name):
    path = os.path.join(res, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def curves(name, probes):
    d = collections.OrderedDict()
    for r in rows(name):
        d.setdefault((r['figure'], r['routing'], r['selection'], r['reorder_buffer']), []).append(r)
    if not d:
        return
    print(f"\n### {name}\n")
    print("| figure | routing | selection | reorder buffer | peak accepted | " +
          " | ".join(f"latency @ {p}" for p in probes) + " |")
    print("|---|---|---|---|---|" + "---|" * len(probes))
    for (fig, routing, sel, rob), rs in d.items():
        peak = max(float(r['accepted']) for r in rs)
        lat = []
        for p in probes:
            r = min(rs, key=lambda r: abs(float(r['offered']) - p))
            lat.append(f"{float(r['latency_avg']):.0f}{' (sat.)' if r['saturated'] == 'true' else ''}")
        print(f"| {fig} | {routing} | {sel if routing == 'adaptive' else '—'} | {rob if rob != '0' else '—'} | "
              f"{peak:.3f} | " + " | ".join(lat) + " |")


curves('fig5.csv', [0.1, 0.3, 0.45, 0.5])
curves('bitrev.csv', [0.05, 0.15, 0.25])
curves('fig6.csv', [0.01, 0.016, 0.05, 0.07])
sat = rows('saturation.csv')
if sat:
    print("\n### saturation.csv (bisection: highest load with accepted >= 0.95 x offered)\n")
    print("| figure | pattern | routing | selection | reorder buffer | saturation throughput |")
    print("|---|---|---|---|---|---|")
    for r in sat:
        print(f"| {r['figure']} | {r['pattern']} | {r['routing']} | {r['selection'] if r['routing'] == 'adaptive' else '—'} | "
              f"{r['reorder_buffer'] if r['reorder_buffer'] != '0' else '—'} | {float(r['saturation_throughput']):.3f} |")
t = rows('fig7.csv')
if t:
    print("\n### fig7.csv (time to deliver the whole trace, cycles)\n")
    print("| compression | routing | selection | reorder buffer | last delivery | vs deterministic | network latency | total latency |")
    print("|---|---|---|---|---|---|---|---|")
    det = {r['compression']: int(r['last_delivery']) for r in t if r['routing'] == 'deterministic'}
    for r in t:
        print(f"| {r['compression']} | {r['routing']} | {r['selection'] if r['routing'] == 'adaptive' else '—'} | "
              f"{r['reorder_buffer'] if r['in_order'] == 'yes' else '—'} | {int(r['last_delivery'])} | "
              f"{int(r['last_delivery']) / det[r['compression']]:.2f} | {float(r['latency_avg']):.0f} | "
              f"{float(r['total_latency_avg']):.0f} |")
