# compare.gp: run 'gnuplot compare.gp' in this folder
set grid
set termoption noenhanced
set key outside below center noenhanced
set logscale x 2
set xtics ('1' 1, '8' 8, '64' 64, '256' 256)
set offsets graph 0.04, graph 0.04, 0, 0
set yrange [0.922503:1.04706]
set format y '%.3g'
set mytics 2
set object 1 rectangle from graph 0, first 0.980392 to graph 1, first 1.02 behind fillcolor rgb '#e6e6e6' fillstyle solid noborder
set xlabel 'batch size B' offset 0,0.6
set ylabel 'median time / NVIDIA H100 80GB HBM3''s (lower is faster; bars: noise band)'
set terminal pngcairo size 1100,700 noenhanced font ',11'
set output './compare.png'
set title 'against NVIDIA H100 80GB HBM3, along B (shaded: within 2%)'
plot 'compare.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=32000 a=0.3', \
     'compare.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=32000 a=0.3', \
     'compare.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 3 pt 9 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=32000 a=0.7', \
     'compare.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 4 pt 11 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=32000 a=0.7', \
     'compare.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 5 pt 13 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=128256 a=0.3', \
     'compare.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 1 pt 4 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=128256 a=0.3', \
     'compare.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 2 pt 6 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=128256 a=0.7', \
     'compare.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 3 pt 7 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=128256 a=0.7', \
     'compare.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 4 pt 5 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=151936 a=0.3', \
     'compare.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 5 pt 9 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=151936 a=0.3', \
     'compare.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 1 pt 11 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=151936 a=0.7', \
     'compare.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 2 pt 13 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=151936 a=0.7', \
     1 with lines lc rgb '#555555' dt 2 notitle
set terminal svg size 1100,700 noenhanced font ',11'
set output './compare.svg'
set title 'against NVIDIA H100 80GB HBM3, along B (shaded: within 2%)'
plot 'compare.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=32000 a=0.3', \
     'compare.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=32000 a=0.3', \
     'compare.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 3 pt 9 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=32000 a=0.7', \
     'compare.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 4 pt 11 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=32000 a=0.7', \
     'compare.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 5 pt 13 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=128256 a=0.3', \
     'compare.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 1 pt 4 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=128256 a=0.3', \
     'compare.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 2 pt 6 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=128256 a=0.7', \
     'compare.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 3 pt 7 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=128256 a=0.7', \
     'compare.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 4 pt 5 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=151936 a=0.3', \
     'compare.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 5 pt 9 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=151936 a=0.3', \
     'compare.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 1 pt 11 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=151936 a=0.7', \
     'compare.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 2 pt 13 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=151936 a=0.7', \
     1 with lines lc rgb '#555555' dt 2 notitle
set terminal pdfcairo size 11in,7in noenhanced font ',11'
set output './compare.pdf'
set title 'against NVIDIA H100 80GB HBM3, along B (shaded: within 2%)'
plot 'compare.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=32000 a=0.3', \
     'compare.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=32000 a=0.3', \
     'compare.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 3 pt 9 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=32000 a=0.7', \
     'compare.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 4 pt 11 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=32000 a=0.7', \
     'compare.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 5 pt 13 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=128256 a=0.3', \
     'compare.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 1 pt 4 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=128256 a=0.3', \
     'compare.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 2 pt 6 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=128256 a=0.7', \
     'compare.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 3 pt 7 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=128256 a=0.7', \
     'compare.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 4 pt 5 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=151936 a=0.3', \
     'compare.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 5 pt 9 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=151936 a=0.3', \
     'compare.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 1 pt 11 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_fused V=151936 a=0.7', \
     'compare.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 2 pt 13 ps 0.9 lw 1.5 title 'NVIDIA H200: cuda_naive V=151936 a=0.7', \
     1 with lines lc rgb '#555555' dt 2 notitle
