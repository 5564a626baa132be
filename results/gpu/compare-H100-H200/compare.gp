# compare.gp: run 'gnuplot compare.gp' in this folder
set grid
set key outside right top noenhanced
set termoption noenhanced
set xtics rotate by 60 right font ',8'
set logscale y 2
set offsets 0.5, 0.5, 0, 0
set bmargin 14
set xlabel 'point'
set ylabel 'median time ratio to results/gpu/NVIDIA_H100_80GB_HBM3/bench.h5 (lower is faster)'
set title 'bench comparison against results/gpu/NVIDIA_H100_80GB_HBM3/bench.h5 (NVIDIA H100 80GB HBM3)'
set terminal pngcairo size 1200,700 noenhanced font ',10'
set output 'compare.png'
plot 'compare.dat' using 1:3:xtic(2) with linespoints pt 7 title 'results/gpu/NVIDIA_H200/bench.h5 (NVIDIA H200)', 1 with lines lt 0 notitle
set terminal svg size 1200,700 noenhanced font ',10'
set output 'compare.svg'
plot 'compare.dat' using 1:3:xtic(2) with linespoints pt 7 title 'results/gpu/NVIDIA_H200/bench.h5 (NVIDIA H200)', 1 with lines lt 0 notitle
