# Plots of the Gómez 2007 simulations (experiments/gomez_sim/run.sh). Call with -e "dir='...'".
# Latency (network latency, injection to tail delivery, cycles) vs accepted traffic (flits per
# terminal per cycle), as the paper's Figs. 5 and 6; Fig. 7 as bars of the trace completion time.
set terminal pngcairo size 1500,1000 font ",10"
set datafile separator ','
set grid
set key top left
# One series per configuration, selected with grep so that its points are joined.
sel(f, fig, cfg) = sprintf("< grep -F '%s,' %s | grep -F ',%s,'", fig, f, cfg)

f5 = dir.'/fig5.csv'
if (system('test -s '.f5.' && echo y') eq 'y') {
  set output dir.'/fig5.png'
  set multiplot layout 1,2 title "Gómez Fig. 5: 4-ary 4-tree, uniform traffic, 32-flit packets"
  set title 'without in-order delivery'
  set xlabel 'accepted traffic (flits/terminal/cycle)'
  set ylabel 'average network latency (cycles)'
  set yrange [0:2000]
  plot sel(f5, 'fig5', 'deterministic,sadp,no,0') using 8:9 with linespoints lw 2 title 'deterministic', \
       sel(f5, 'fig5', 'adaptive,sadp,no,0') using 8:9 with linespoints title 'adaptive SADP', \
       sel(f5, 'fig5', 'adaptive,ff,no,0') using 8:9 with linespoints title 'adaptive FF'
  set title 'with in-order delivery (reorder buffer of N packets per destination)'
  plot sel(f5, 'fig5', 'deterministic,sadp,no,0') using 8:9 with linespoints lw 2 title 'deterministic (in order by design)', \
       for [c in "sadp ff"] for [n in "4 64"] sel(f5, 'fig5', 'adaptive,'.c.',yes,'.n) using 8:9 with linespoints \
         title 'adaptive '.c.', N='.n
  unset multiplot
}

fb = dir.'/bitrev.csv'
if (system('test -s '.fb.' && echo y') eq 'y') {
  set output dir.'/bitrev.png'
  set terminal pngcairo size 900,700 font ",10"
  set title "Gómez §5.2.1: bit-reversal on the 4-ary 4-tree (dashed: the paper's 1/k = 0.25; dotted: static 1/ML = 1/15)"
  set xlabel 'accepted traffic (flits/terminal/cycle)'
  set ylabel 'average network latency (cycles)'
  set yrange [0:3000]
  set arrow 1 from 0.25, graph 0 to 0.25, graph 1 nohead dt 2
  set arrow 2 from 1.0/15, graph 0 to 1.0/15, graph 1 nohead dt 3
  plot for [c in "deterministic,sadp adaptive,sadp adaptive,ff"] sel(fb, 'bitrev', c.',no,0') using 8:9 \
       with linespoints title c
  unset arrow 1
  unset arrow 2
  set terminal pngcairo size 1500,1000 font ",10"
}

f6 = dir.'/fig6.csv'
if (system('test -s '.f6.' && echo y') eq 'y') {
  set output dir.'/fig6.png'
  set multiplot layout 1,2 title "Gómez Fig. 6: 4-ary 4-tree, hot-spot traffic, in-order delivery for the adaptive ones"
  set xlabel 'accepted traffic (flits/terminal/cycle)'
  set ylabel 'average network latency (cycles)'
  set yrange [0:3000]
  do for [hs in "0.05 0.2"] {
    set title 'hot spot '.hs
    plot sel(f6, 'fig6-'.hs, 'deterministic,sadp,no,0') using 8:9 with linespoints lw 2 title 'deterministic', \
         for [c in "sadp ff"] for [n in "4 64"] sel(f6, 'fig6-'.hs, 'adaptive,'.c.',yes,'.n) using 8:9 \
           with linespoints title 'adaptive '.c.', N='.n, \
         for [c in "sadp ff"] sel(f6, 'fig6-'.hs, 'adaptive,'.c.',no,0') using 8:9 with linespoints dt 2 \
           title 'adaptive '.c.', out of order'
  }
  unset multiplot
}

f7 = dir.'/fig7.csv'
if (system('test -s '.f7.' && echo y') eq 'y') {
  set output dir.'/fig7.png'
  set terminal pngcairo size 1800,650 font ",10"
  set multiplot layout 1,3 title "Gómez Fig. 7: time to deliver the synthetic I/O trace, 2-ary 7-tree (23 storage + 105 clients)"
  set style data histograms
  set style histogram clustered gap 1
  set style fill solid 0.8 border -1
  set xlabel 'compression factor'
  set ylabel 'last delivery (cycles)'
  set yrange [0:*]
  set key top right
  set title '(a) without in-order delivery'
  plot for [c in "deterministic,sadp,no,0 adaptive,sadp,no,0 adaptive,ff,no,0"] \
       '< grep -F ",'.c.'," '.f7 using 6:xtic(1) title c
  set title '(b) in-order delivery, reorder buffer 8192 packets (8 MB)'
  plot for [c in "deterministic,sadp,no,0 adaptive,sadp,yes,8192 adaptive,ff,yes,8192"] \
       '< grep -F ",'.c.'," '.f7 using 6:xtic(1) title c
  set title '(c) in-order delivery, reorder buffer 64 packets (64 KB)'
  plot for [c in "deterministic,sadp,no,0 adaptive,sadp,yes,64 adaptive,ff,yes,64"] \
       '< grep -F ",'.c.'," '.f7 using 6:xtic(1) title c
  unset multiplot
}
