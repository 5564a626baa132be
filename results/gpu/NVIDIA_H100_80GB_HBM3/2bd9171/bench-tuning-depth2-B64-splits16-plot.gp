# run gnuplot 'bench-tuning-depth2-B64-splits16-plot.gp' in this folder
set grid
set key outside right top noenhanced
set logscale xy
set ylabel 'median time per step (us), bars: interquartile range'
set xlabel 'batch size B (sequences)'
set title 'step latency against B on NVIDIA H100 80GB HBM3'
set terminal pngcairo size 1000,650 noenhanced font ',10'
set output './bench-tuning-depth2-B64-splits16-latency_vs_B.png'
plot './bench-tuning-depth2-B64-splits16-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 pt 4 ps 0.7 title 'cuda_fused K=5 V=128256 a=0.7 hot'
set terminal svg size 1000,650 noenhanced font ',10'
set output './bench-tuning-depth2-B64-splits16-latency_vs_B.svg'
plot './bench-tuning-depth2-B64-splits16-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 pt 4 ps 0.7 title 'cuda_fused K=5 V=128256 a=0.7 hot'
set xlabel 'vocabulary size V'
set title 'step latency against V on NVIDIA H100 80GB HBM3'
set terminal pngcairo size 1000,650 noenhanced font ',10'
set output './bench-tuning-depth2-B64-splits16-latency_vs_V.png'
plot './bench-tuning-depth2-B64-splits16-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 pt 4 ps 0.7 title 'cuda_fused K=5 B=64 a=0.7 hot'
set terminal svg size 1000,650 noenhanced font ',10'
set output './bench-tuning-depth2-B64-splits16-latency_vs_V.svg'
plot './bench-tuning-depth2-B64-splits16-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 pt 4 ps 0.7 title 'cuda_fused K=5 B=64 a=0.7 hot'
