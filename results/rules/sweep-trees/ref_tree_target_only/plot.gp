# plot.gp: the plots of this sweep; run 'gnuplot plot.gp' in this folder
set grid
set key outside right top
set termoption noenhanced
set terminal pngcairo size 1000,600 noenhanced font ',11'
set output 'acceptance_vs_T.png'
set title 'logits:V=1000,K=3 (ref_tree_target_only): acceptance per draft position, K = 3'
set xlabel 'temperature T (target and drafter)'
set ylabel 'acceptance alpha_k (probability)'
set yrange [0:1.05]
plot for [k=1:3] 'acceptance.dat' using 1:(column(4*k-2)) with lines lt k title sprintf('position %d analytic', k), \
     for [k=1:3] 'acceptance.dat' using 1:(column(4*k-1)):(column(4*k)):(column(4*k+1)) with yerrorbars lt k pt 7 ps 0.6 title sprintf('position %d measured', k)
set yrange [*:*]
set output 'tokens_vs_K.png'
set title 'logits:V=1000,K=3 (ref_tree_target_only): tokens per step at T = 0.9'
set xlabel 'drafts per step K'
set ylabel 'tokens per step (expected)'
plot 'tokens.dat' using 1:2 with linespoints pt 7 title 'analytic', 'tokens.dat' using 1:3 with points pt 6 ps 1.5 title 'measured'
set output 'speedup_vs_K.png'
set title 'logits:V=1000,K=3 (ref_tree_target_only): speedup E / (K c + 1) at T = 0.9'
set xlabel 'drafts per step K'
set ylabel 'speedup over plain decoding (x)'
plot for [j=1:4] 'tokens.dat' using 1:(column(3+j)) with linespoints pt 7 title sprintf('c = %s', word('0 0.05 0.1 0.2', j))
set output 'accepted_lengths.png'
set title 'logits:V=1000,K=3 (ref_tree_target_only): accepted drafts per step, K = 3, T = 0.9'
set xlabel 'accepted drafts n'
set ylabel 'fraction of steps'
set style fill solid 0.6
set boxwidth 0.7
set xtics 1
plot 'lengths.dat' using 1:2 with boxes title 'measured'
unset style
set xtics autofreq
set terminal svg size 1000,600 noenhanced font ',11'
set output 'acceptance_vs_T.svg'
set title 'logits:V=1000,K=3 (ref_tree_target_only): acceptance per draft position, K = 3'
set xlabel 'temperature T (target and drafter)'
set ylabel 'acceptance alpha_k (probability)'
set yrange [0:1.05]
plot for [k=1:3] 'acceptance.dat' using 1:(column(4*k-2)) with lines lt k title sprintf('position %d analytic', k), \
     for [k=1:3] 'acceptance.dat' using 1:(column(4*k-1)):(column(4*k)):(column(4*k+1)) with yerrorbars lt k pt 7 ps 0.6 title sprintf('position %d measured', k)
set yrange [*:*]
set output 'tokens_vs_K.svg'
set title 'logits:V=1000,K=3 (ref_tree_target_only): tokens per step at T = 0.9'
set xlabel 'drafts per step K'
set ylabel 'tokens per step (expected)'
plot 'tokens.dat' using 1:2 with linespoints pt 7 title 'analytic', 'tokens.dat' using 1:3 with points pt 6 ps 1.5 title 'measured'
set output 'speedup_vs_K.svg'
set title 'logits:V=1000,K=3 (ref_tree_target_only): speedup E / (K c + 1) at T = 0.9'
set xlabel 'drafts per step K'
set ylabel 'speedup over plain decoding (x)'
plot for [j=1:4] 'tokens.dat' using 1:(column(3+j)) with linespoints pt 7 title sprintf('c = %s', word('0 0.05 0.1 0.2', j))
set output 'accepted_lengths.svg'
set title 'logits:V=1000,K=3 (ref_tree_target_only): accepted drafts per step, K = 3, T = 0.9'
set xlabel 'accepted drafts n'
set ylabel 'fraction of steps'
set style fill solid 0.6
set boxwidth 0.7
set xtics 1
plot 'lengths.dat' using 1:2 with boxes title 'measured'
unset style
set xtics autofreq
