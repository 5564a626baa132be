# bench-logits-bf16-plot.gp: run 'gnuplot bench-logits-bf16-plot.gp' in this folder
set grid
set key outside right top noenhanced
set logscale xy
set ylabel 'median time per step (us), bars: interquartile range'
set xlabel 'batch size B (sequences)'
set title 'step latency against B on NVIDIA H100 80GB HBM3'
set terminal pngcairo size 1000,650 noenhanced font ',10'
set output 'bench-logits-bf16-latency_vs_B.png'
plot for [i=0:0] 'bench-logits-bf16-latency_B.dat' index i using 1:2:3:4 with yerrorlines lc ((i%8)+1) pt ((i%6)+4) ps 0.7 title columnheader(1)
set terminal svg size 1000,650 noenhanced font ',10'
set output 'bench-logits-bf16-latency_vs_B.svg'
plot for [i=0:0] 'bench-logits-bf16-latency_B.dat' index i using 1:2:3:4 with yerrorlines lc ((i%8)+1) pt ((i%6)+4) ps 0.7 title columnheader(1)
set xlabel 'vocabulary size V'
set title 'step latency against V on NVIDIA H100 80GB HBM3'
set terminal pngcairo size 1000,650 noenhanced font ',10'
set output 'bench-logits-bf16-latency_vs_V.png'
plot for [i=0:1] 'bench-logits-bf16-latency_V.dat' index i using 1:2:3:4 with yerrorlines lc ((i%8)+1) pt ((i%6)+4) ps 0.7 title columnheader(1)
set terminal svg size 1000,650 noenhanced font ',10'
set output 'bench-logits-bf16-latency_vs_V.svg'
plot for [i=0:1] 'bench-logits-bf16-latency_V.dat' index i using 1:2:3:4 with yerrorlines lc ((i%8)+1) pt ((i%6)+4) ps 0.7 title columnheader(1)
