# run gnuplot 'bench-flashinferhot-plot.gp' in this folder
set grid
set key outside right top noenhanced
set logscale xy
set ylabel 'median time per step (us), bars: interquartile range'
set xlabel 'batch size B (sequences)'
set title 'step latency against B on NVIDIA H100 80GB HBM3'
set terminal pngcairo size 1000,650 noenhanced font ',10'
set output './bench-flashinferhot-latency_vs_B.png'
plot './bench-flashinferhot-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 pt 4 ps 0.7 title 'flashinfer_chain K=5 V=128256 a=0.7 hot', \
     './bench-flashinferhot-latency_B.dat' index 1 using 1:2:3:4 with yerrorlines lc 2 pt 5 ps 0.7 title 'cuda_fused K=5 V=128256 a=0.7 hot'
set terminal svg size 1000,650 noenhanced font ',10'
set output './bench-flashinferhot-latency_vs_B.svg'
plot './bench-flashinferhot-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 pt 4 ps 0.7 title 'flashinfer_chain K=5 V=128256 a=0.7 hot', \
     './bench-flashinferhot-latency_B.dat' index 1 using 1:2:3:4 with yerrorlines lc 2 pt 5 ps 0.7 title 'cuda_fused K=5 V=128256 a=0.7 hot'
set xlabel 'vocabulary size V'
set title 'step latency against V on NVIDIA H100 80GB HBM3'
set terminal pngcairo size 1000,650 noenhanced font ',10'
set output './bench-flashinferhot-latency_vs_V.png'
plot './bench-flashinferhot-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 pt 4 ps 0.7 title 'flashinfer_chain K=5 B=1 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 1 using 1:2:3:4 with yerrorlines lc 2 pt 5 ps 0.7 title 'cuda_fused K=5 B=1 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 2 using 1:2:3:4 with yerrorlines lc 3 pt 6 ps 0.7 title 'flashinfer_chain K=5 B=64 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 3 using 1:2:3:4 with yerrorlines lc 4 pt 7 ps 0.7 title 'cuda_fused K=5 B=64 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 4 using 1:2:3:4 with yerrorlines lc 5 pt 8 ps 0.7 title 'flashinfer_chain K=5 B=256 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 5 using 1:2:3:4 with yerrorlines lc 6 pt 9 ps 0.7 title 'cuda_fused K=5 B=256 a=0.7 hot'
set terminal svg size 1000,650 noenhanced font ',10'
set output './bench-flashinferhot-latency_vs_V.svg'
plot './bench-flashinferhot-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc 1 pt 4 ps 0.7 title 'flashinfer_chain K=5 B=1 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 1 using 1:2:3:4 with yerrorlines lc 2 pt 5 ps 0.7 title 'cuda_fused K=5 B=1 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 2 using 1:2:3:4 with yerrorlines lc 3 pt 6 ps 0.7 title 'flashinfer_chain K=5 B=64 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 3 using 1:2:3:4 with yerrorlines lc 4 pt 7 ps 0.7 title 'cuda_fused K=5 B=64 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 4 using 1:2:3:4 with yerrorlines lc 5 pt 8 ps 0.7 title 'flashinfer_chain K=5 B=256 a=0.7 hot', \
     './bench-flashinferhot-latency_V.dat' index 5 using 1:2:3:4 with yerrorlines lc 6 pt 9 ps 0.7 title 'cuda_fused K=5 B=256 a=0.7 hot'
