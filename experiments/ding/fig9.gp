# Ding et al. Fig. 9: mean schedulability per tree and scheduler, min-max as error bars.
set terminal pngcairo size 1400,600 font ",11"
set output dir.'/fig9.png'
set title "Schedulability ratio, 100 random permutations per point (level by level, Ding §4; min-max bars)"
set ylabel "granted / requested"
set yrange [0:1.05]
set grid ytics
set style data histogram
set style histogram errorbars gap 2 lw 1.5
set style fill solid 0.8 border -1
set key top right
set xtics rotate by -30
plot dir.'/fig9.dat' using 2:3:4:xtic(1) title "level-wise" lc rgb "#1f77b4", \
     '' using 5:6:7 title "local-greedy" lc rgb "#ff7f0e", \
     '' using 8:9:10 title "local-random" lc rgb "#2ca02c"
