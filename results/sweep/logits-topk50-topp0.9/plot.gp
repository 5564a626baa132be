# plot.gp: the plots of this sweep; run 'gnuplot plot.gp' in this folder
set grid
set key outside below center horizontal Left reverse
set termoption noenhanced
set key title 'lines: analytic; points and bars: measured, 95% interval'
set terminal pngcairo size 1000,600 noenhanced font ',11'
set output './acceptance_vs_T.png'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): acceptance per draft position, K = 4'
set xlabel 'temperature T (target and drafter)'
set xtics autofreq
set xrange [0.161:1.539]
set ylabel 'acceptance alpha_k (probability)'
set yrange [0:1.05]
plot 'acceptance.dat' using 1:2 with lines lc rgb '#0072B2' dt 1 notitle, \
     'acceptance.dat' using 1:3:4:5 with yerrorbars lc rgb '#0072B2' dt 1 pt 7 ps 0.6 title 'position 1', \
     'acceptance.dat' using 1:6 with lines lc rgb '#D55E00' dt 2 notitle, \
     'acceptance.dat' using 1:7:8:9 with yerrorbars lc rgb '#D55E00' dt 2 pt 5 ps 0.6 title 'position 2', \
     'acceptance.dat' using 1:10 with lines lc rgb '#009E73' dt 3 notitle, \
     'acceptance.dat' using 1:11:12:13 with yerrorbars lc rgb '#009E73' dt 3 pt 9 ps 0.6 title 'position 3', \
     'acceptance.dat' using 1:14 with lines lc rgb '#CC79A7' dt 4 notitle, \
     'acceptance.dat' using 1:15:16:17 with yerrorbars lc rgb '#CC79A7' dt 4 pt 11 ps 0.6 title 'position 4'
set yrange [*:*]
set terminal pngcairo size 1000,600 noenhanced font ',11'
set output './tokens_vs_K.png'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): tokens per step at T = 1'
set xlabel 'drafts per step K'
set xtics ('1' 1, '2' 2, '4' 4)
set xrange [0.5:4.5]
set ylabel 'tokens per step E'
set offsets 0, 0, graph 0.05, graph 0.05
plot 'tokens.dat' using 1:2 with lines lc rgb '#0072B2' dt 1 notitle, \
     'tokens.dat' using 1:3:4:5 with yerrorbars lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'E'
set terminal pngcairo size 1000,600 noenhanced font ',11'
set output './speedup_vs_K.png'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): speedup E / (K c + 1) at T = 1'
set ylabel 'speedup over plain decoding (x)'
plot 'tokens.dat' using 1:6 with lines lc rgb '#0072B2' dt 1 notitle, \
     'tokens.dat' using 1:7:8:9 with yerrorbars lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'c = 0', \
     'tokens.dat' using 1:10 with lines lc rgb '#D55E00' dt 2 notitle, \
     'tokens.dat' using 1:11:12:13 with yerrorbars lc rgb '#D55E00' dt 2 pt 5 ps 0.8 title 'c = 0.05', \
     'tokens.dat' using 1:14 with lines lc rgb '#009E73' dt 3 notitle, \
     'tokens.dat' using 1:15:16:17 with yerrorbars lc rgb '#009E73' dt 3 pt 9 ps 0.8 title 'c = 0.1', \
     'tokens.dat' using 1:18 with lines lc rgb '#CC79A7' dt 4 notitle, \
     'tokens.dat' using 1:19:20:21 with yerrorbars lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 title 'c = 0.2'
set offsets 0, 0, 0, 0
unset key
set terminal pngcairo size 1000,600 noenhanced font ',11'
set output './accepted_lengths.png'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): accepted drafts per step, K = 4, T = 1'
set xlabel 'accepted drafts n'
set ylabel 'fraction of steps'
set style fill solid 0.6
set boxwidth 0.7
set xtics 1
set xrange [-0.5:4.5]
set yrange [0:*]
plot 'lengths.dat' using 1:2 with boxes lc rgb '#0072B2' notitle
unset style
set xtics autofreq
set xrange [*:*]
set yrange [*:*]
set key
set key title 'lines: analytic; points and bars: measured, 95% interval'
set terminal svg size 1000,600 noenhanced font ',11'
set output './acceptance_vs_T.svg'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): acceptance per draft position, K = 4'
set xlabel 'temperature T (target and drafter)'
set xtics autofreq
set xrange [0.161:1.539]
set ylabel 'acceptance alpha_k (probability)'
set yrange [0:1.05]
plot 'acceptance.dat' using 1:2 with lines lc rgb '#0072B2' dt 1 notitle, \
     'acceptance.dat' using 1:3:4:5 with yerrorbars lc rgb '#0072B2' dt 1 pt 7 ps 0.6 title 'position 1', \
     'acceptance.dat' using 1:6 with lines lc rgb '#D55E00' dt 2 notitle, \
     'acceptance.dat' using 1:7:8:9 with yerrorbars lc rgb '#D55E00' dt 2 pt 5 ps 0.6 title 'position 2', \
     'acceptance.dat' using 1:10 with lines lc rgb '#009E73' dt 3 notitle, \
     'acceptance.dat' using 1:11:12:13 with yerrorbars lc rgb '#009E73' dt 3 pt 9 ps 0.6 title 'position 3', \
     'acceptance.dat' using 1:14 with lines lc rgb '#CC79A7' dt 4 notitle, \
     'acceptance.dat' using 1:15:16:17 with yerrorbars lc rgb '#CC79A7' dt 4 pt 11 ps 0.6 title 'position 4'
set yrange [*:*]
set terminal svg size 1000,600 noenhanced font ',11'
set output './tokens_vs_K.svg'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): tokens per step at T = 1'
set xlabel 'drafts per step K'
set xtics ('1' 1, '2' 2, '4' 4)
set xrange [0.5:4.5]
set ylabel 'tokens per step E'
set offsets 0, 0, graph 0.05, graph 0.05
plot 'tokens.dat' using 1:2 with lines lc rgb '#0072B2' dt 1 notitle, \
     'tokens.dat' using 1:3:4:5 with yerrorbars lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'E'
set terminal svg size 1000,600 noenhanced font ',11'
set output './speedup_vs_K.svg'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): speedup E / (K c + 1) at T = 1'
set ylabel 'speedup over plain decoding (x)'
plot 'tokens.dat' using 1:6 with lines lc rgb '#0072B2' dt 1 notitle, \
     'tokens.dat' using 1:7:8:9 with yerrorbars lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'c = 0', \
     'tokens.dat' using 1:10 with lines lc rgb '#D55E00' dt 2 notitle, \
     'tokens.dat' using 1:11:12:13 with yerrorbars lc rgb '#D55E00' dt 2 pt 5 ps 0.8 title 'c = 0.05', \
     'tokens.dat' using 1:14 with lines lc rgb '#009E73' dt 3 notitle, \
     'tokens.dat' using 1:15:16:17 with yerrorbars lc rgb '#009E73' dt 3 pt 9 ps 0.8 title 'c = 0.1', \
     'tokens.dat' using 1:18 with lines lc rgb '#CC79A7' dt 4 notitle, \
     'tokens.dat' using 1:19:20:21 with yerrorbars lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 title 'c = 0.2'
set offsets 0, 0, 0, 0
unset key
set terminal svg size 1000,600 noenhanced font ',11'
set output './accepted_lengths.svg'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): accepted drafts per step, K = 4, T = 1'
set xlabel 'accepted drafts n'
set ylabel 'fraction of steps'
set style fill solid 0.6
set boxwidth 0.7
set xtics 1
set xrange [-0.5:4.5]
set yrange [0:*]
plot 'lengths.dat' using 1:2 with boxes lc rgb '#0072B2' notitle
unset style
set xtics autofreq
set xrange [*:*]
set yrange [*:*]
set key
set key title 'lines: analytic; points and bars: measured, 95% interval'
set terminal pdfcairo size 10in,6in noenhanced font ',11'
set output './acceptance_vs_T.pdf'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): acceptance per draft position, K = 4'
set xlabel 'temperature T (target and drafter)'
set xtics autofreq
set xrange [0.161:1.539]
set ylabel 'acceptance alpha_k (probability)'
set yrange [0:1.05]
plot 'acceptance.dat' using 1:2 with lines lc rgb '#0072B2' dt 1 notitle, \
     'acceptance.dat' using 1:3:4:5 with yerrorbars lc rgb '#0072B2' dt 1 pt 7 ps 0.6 title 'position 1', \
     'acceptance.dat' using 1:6 with lines lc rgb '#D55E00' dt 2 notitle, \
     'acceptance.dat' using 1:7:8:9 with yerrorbars lc rgb '#D55E00' dt 2 pt 5 ps 0.6 title 'position 2', \
     'acceptance.dat' using 1:10 with lines lc rgb '#009E73' dt 3 notitle, \
     'acceptance.dat' using 1:11:12:13 with yerrorbars lc rgb '#009E73' dt 3 pt 9 ps 0.6 title 'position 3', \
     'acceptance.dat' using 1:14 with lines lc rgb '#CC79A7' dt 4 notitle, \
     'acceptance.dat' using 1:15:16:17 with yerrorbars lc rgb '#CC79A7' dt 4 pt 11 ps 0.6 title 'position 4'
set yrange [*:*]
set terminal pdfcairo size 10in,6in noenhanced font ',11'
set output './tokens_vs_K.pdf'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): tokens per step at T = 1'
set xlabel 'drafts per step K'
set xtics ('1' 1, '2' 2, '4' 4)
set xrange [0.5:4.5]
set ylabel 'tokens per step E'
set offsets 0, 0, graph 0.05, graph 0.05
plot 'tokens.dat' using 1:2 with lines lc rgb '#0072B2' dt 1 notitle, \
     'tokens.dat' using 1:3:4:5 with yerrorbars lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'E'
set terminal pdfcairo size 10in,6in noenhanced font ',11'
set output './speedup_vs_K.pdf'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): speedup E / (K c + 1) at T = 1'
set ylabel 'speedup over plain decoding (x)'
plot 'tokens.dat' using 1:6 with lines lc rgb '#0072B2' dt 1 notitle, \
     'tokens.dat' using 1:7:8:9 with yerrorbars lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'c = 0', \
     'tokens.dat' using 1:10 with lines lc rgb '#D55E00' dt 2 notitle, \
     'tokens.dat' using 1:11:12:13 with yerrorbars lc rgb '#D55E00' dt 2 pt 5 ps 0.8 title 'c = 0.05', \
     'tokens.dat' using 1:14 with lines lc rgb '#009E73' dt 3 notitle, \
     'tokens.dat' using 1:15:16:17 with yerrorbars lc rgb '#009E73' dt 3 pt 9 ps 0.8 title 'c = 0.1', \
     'tokens.dat' using 1:18 with lines lc rgb '#CC79A7' dt 4 notitle, \
     'tokens.dat' using 1:19:20:21 with yerrorbars lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 title 'c = 0.2'
set offsets 0, 0, 0, 0
unset key
set terminal pdfcairo size 10in,6in noenhanced font ',11'
set output './accepted_lengths.pdf'
set title 'logits:V=32000,topk=50,topp=0.9 (ref): accepted drafts per step, K = 4, T = 1'
set xlabel 'accepted drafts n'
set ylabel 'fraction of steps'
set style fill solid 0.6
set boxwidth 0.7
set xtics 1
set xrange [-0.5:4.5]
set yrange [0:*]
plot 'lengths.dat' using 1:2 with boxes lc rgb '#0072B2' notitle
unset style
set xtics autofreq
set xrange [*:*]
set yrange [*:*]
set key
