# compare.gp: the samplers side by side; run 'gnuplot compare.gp' here
set grid
set key outside below center horizontal Left reverse
set termoption noenhanced
set key title 'lines: ref''s analytic; points and bars: measured, 95% interval'
set xlabel 'temperature T (target and drafter)'
set ylabel 'acceptance alpha_k (probability)'
set autoscale y
set offsets 0, 0, graph 0.05, graph 0.05
stats './ref/acceptance.dat' using 1 nooutput
set xrange [STATS_min - 0.03 * (STATS_max - STATS_min):STATS_max + 0.03 * (STATS_max - STATS_min)]
set terminal pngcairo size 1100,600 noenhanced font ',11'
set output './acceptance_vs_T.png'
set title 'logits:V=100: acceptance per draft position at K = 3, samplers side by side'
plot './ref/acceptance.dat' using 1:2 with lines lc rgb '#0072B2' dt 1 lw 1.5 notitle, \
     './ref/acceptance.dat' using 1:3:4:5 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'ref position 1', \
     './ref/acceptance.dat' using 1:6 with lines lc rgb '#D55E00' dt 1 lw 1.5 notitle, \
     './ref/acceptance.dat' using 1:7:8:9 with yerrorlines lc rgb '#D55E00' dt 1 pt 7 ps 0.8 title 'ref position 2', \
     './ref/acceptance.dat' using 1:10 with lines lc rgb '#009E73' dt 1 lw 1.5 notitle, \
     './ref/acceptance.dat' using 1:11:12:13 with yerrorlines lc rgb '#009E73' dt 1 pt 7 ps 0.8 title 'ref position 3', \
     './numpy_chain/acceptance.dat' using 1:3:4:5 with yerrorlines lc rgb '#0072B2' dt 2 pt 5 ps 0.8 title 'numpy_chain position 1', \
     './numpy_chain/acceptance.dat' using 1:7:8:9 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 title 'numpy_chain position 2', \
     './numpy_chain/acceptance.dat' using 1:11:12:13 with yerrorlines lc rgb '#009E73' dt 2 pt 5 ps 0.8 title 'numpy_chain position 3'
set terminal svg size 1100,600 noenhanced font ',11'
set output './acceptance_vs_T.svg'
set title 'logits:V=100: acceptance per draft position at K = 3, samplers side by side'
plot './ref/acceptance.dat' using 1:2 with lines lc rgb '#0072B2' dt 1 lw 1.5 notitle, \
     './ref/acceptance.dat' using 1:3:4:5 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'ref position 1', \
     './ref/acceptance.dat' using 1:6 with lines lc rgb '#D55E00' dt 1 lw 1.5 notitle, \
     './ref/acceptance.dat' using 1:7:8:9 with yerrorlines lc rgb '#D55E00' dt 1 pt 7 ps 0.8 title 'ref position 2', \
     './ref/acceptance.dat' using 1:10 with lines lc rgb '#009E73' dt 1 lw 1.5 notitle, \
     './ref/acceptance.dat' using 1:11:12:13 with yerrorlines lc rgb '#009E73' dt 1 pt 7 ps 0.8 title 'ref position 3', \
     './numpy_chain/acceptance.dat' using 1:3:4:5 with yerrorlines lc rgb '#0072B2' dt 2 pt 5 ps 0.8 title 'numpy_chain position 1', \
     './numpy_chain/acceptance.dat' using 1:7:8:9 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 title 'numpy_chain position 2', \
     './numpy_chain/acceptance.dat' using 1:11:12:13 with yerrorlines lc rgb '#009E73' dt 2 pt 5 ps 0.8 title 'numpy_chain position 3'
set terminal pdfcairo size 11in,6in noenhanced font ',11'
set output './acceptance_vs_T.pdf'
set title 'logits:V=100: acceptance per draft position at K = 3, samplers side by side'
plot './ref/acceptance.dat' using 1:2 with lines lc rgb '#0072B2' dt 1 lw 1.5 notitle, \
     './ref/acceptance.dat' using 1:3:4:5 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'ref position 1', \
     './ref/acceptance.dat' using 1:6 with lines lc rgb '#D55E00' dt 1 lw 1.5 notitle, \
     './ref/acceptance.dat' using 1:7:8:9 with yerrorlines lc rgb '#D55E00' dt 1 pt 7 ps 0.8 title 'ref position 2', \
     './ref/acceptance.dat' using 1:10 with lines lc rgb '#009E73' dt 1 lw 1.5 notitle, \
     './ref/acceptance.dat' using 1:11:12:13 with yerrorlines lc rgb '#009E73' dt 1 pt 7 ps 0.8 title 'ref position 3', \
     './numpy_chain/acceptance.dat' using 1:3:4:5 with yerrorlines lc rgb '#0072B2' dt 2 pt 5 ps 0.8 title 'numpy_chain position 1', \
     './numpy_chain/acceptance.dat' using 1:7:8:9 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 title 'numpy_chain position 2', \
     './numpy_chain/acceptance.dat' using 1:11:12:13 with yerrorlines lc rgb '#009E73' dt 2 pt 5 ps 0.8 title 'numpy_chain position 3'
