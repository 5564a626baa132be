# run gnuplot 'bench-graph-plot.gp' in this folder
set grid
set termoption noenhanced
set bars 1.5
set title 'step latency against B on NVIDIA H200 (bars: interquartile range)'
set terminal pngcairo size 1000,950 noenhanced font ',11'
set output './bench-graph-latency_vs_B.png'
set multiplot
set lmargin 12
set rmargin 4
set origin 0,0.56
set size 1,0.44
unset key
set logscale xy
set format x ''
unset xlabel
set ylabel 'median time per step (us)'
set xrange [0.8:80]
set yrange [6.35826:29.4768]
set xtics ('1' 1, '64' 64)
plot './bench-graph-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'batch size B (sequences)'
set ylabel 'interquartile range (% of median)'
plot './bench-graph-latency_B.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=128256 a=0.7 hot, graph'
unset multiplot
set title 'step latency against B on NVIDIA H200 (bars: interquartile range)'
set terminal svg size 1000,950 noenhanced font ',11'
set output './bench-graph-latency_vs_B.svg'
set multiplot
set lmargin 12
set rmargin 4
set origin 0,0.56
set size 1,0.44
unset key
set logscale xy
set format x ''
unset xlabel
set ylabel 'median time per step (us)'
set xrange [0.8:80]
set yrange [6.35826:29.4768]
set xtics ('1' 1, '64' 64)
plot './bench-graph-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'batch size B (sequences)'
set ylabel 'interquartile range (% of median)'
plot './bench-graph-latency_B.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=128256 a=0.7 hot, graph'
unset multiplot
set title 'step latency against B on NVIDIA H200 (bars: interquartile range)'
set terminal pdfcairo size 10in,9.5in noenhanced font ',11'
set output './bench-graph-latency_vs_B.pdf'
set multiplot
set lmargin 12
set rmargin 4
set origin 0,0.56
set size 1,0.44
unset key
set logscale xy
set format x ''
unset xlabel
set ylabel 'median time per step (us)'
set xrange [0.8:80]
set yrange [6.35826:29.4768]
set xtics ('1' 1, '64' 64)
plot './bench-graph-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'batch size B (sequences)'
set ylabel 'interquartile range (% of median)'
plot './bench-graph-latency_B.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=128256 a=0.7 hot, graph'
unset multiplot
set title 'step latency against V on NVIDIA H200 (bars: interquartile range)'
set terminal pngcairo size 1000,950 noenhanced font ',11'
set output './bench-graph-latency_vs_V.png'
set multiplot
set lmargin 12
set rmargin 4
set origin 0,0.56
set size 1,0.44
unset key
set logscale xy
set format x ''
unset xlabel
set ylabel 'median time per step (us)'
set xrange [102605:160320]
set yrange [6.35826:29.4768]
set xtics ('128256' 128256)
plot './bench-graph-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5, \
     './bench-graph-latency_V.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'vocabulary size V'
set ylabel 'interquartile range (% of median)'
plot './bench-graph-latency_V.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=1 a=0.7 hot, graph', \
     './bench-graph-latency_V.dat' index 1 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=64 a=0.7 hot, graph'
unset multiplot
set title 'step latency against V on NVIDIA H200 (bars: interquartile range)'
set terminal svg size 1000,950 noenhanced font ',11'
set output './bench-graph-latency_vs_V.svg'
set multiplot
set lmargin 12
set rmargin 4
set origin 0,0.56
set size 1,0.44
unset key
set logscale xy
set format x ''
unset xlabel
set ylabel 'median time per step (us)'
set xrange [102605:160320]
set yrange [6.35826:29.4768]
set xtics ('128256' 128256)
plot './bench-graph-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5, \
     './bench-graph-latency_V.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'vocabulary size V'
set ylabel 'interquartile range (% of median)'
plot './bench-graph-latency_V.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=1 a=0.7 hot, graph', \
     './bench-graph-latency_V.dat' index 1 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=64 a=0.7 hot, graph'
unset multiplot
set title 'step latency against V on NVIDIA H200 (bars: interquartile range)'
set terminal pdfcairo size 10in,9.5in noenhanced font ',11'
set output './bench-graph-latency_vs_V.pdf'
set multiplot
set lmargin 12
set rmargin 4
set origin 0,0.56
set size 1,0.44
unset key
set logscale xy
set format x ''
unset xlabel
set ylabel 'median time per step (us)'
set xrange [102605:160320]
set yrange [6.35826:29.4768]
set xtics ('128256' 128256)
plot './bench-graph-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5, \
     './bench-graph-latency_V.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'vocabulary size V'
set ylabel 'interquartile range (% of median)'
plot './bench-graph-latency_V.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=1 a=0.7 hot, graph', \
     './bench-graph-latency_V.dat' index 1 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=64 a=0.7 hot, graph'
unset multiplot
