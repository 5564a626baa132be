# run gnuplot 'bench-plot.gp' in this folder
set grid
set termoption noenhanced
set bars 1.5
set title 'step latency against B on NVIDIA H200 (bars: interquartile range)'
set terminal pngcairo size 1000,950 noenhanced font ',11'
set output './bench-latency_vs_B.png'
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
set xrange [0.8:320]
set yrange [7.70783:78424.3]
set xtics ('1' 1, '8' 8, '64' 64, '256' 256)
plot './bench-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'batch size B (sequences)'
set ylabel 'interquartile range (% of median)'
plot './bench-latency_B.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=32000 a=0.3 hot', \
     './bench-latency_B.dat' index 1 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=32000 a=0.3 hot', \
     './bench-latency_B.dat' index 2 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=32000 a=0.7 hot', \
     './bench-latency_B.dat' index 3 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=32000 a=0.7 hot', \
     './bench-latency_B.dat' index 4 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=128256 a=0.3 hot', \
     './bench-latency_B.dat' index 5 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=128256 a=0.3 hot', \
     './bench-latency_B.dat' index 6 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=128256 a=0.7 hot', \
     './bench-latency_B.dat' index 7 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=128256 a=0.7 hot', \
     './bench-latency_B.dat' index 8 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=151936 a=0.3 hot', \
     './bench-latency_B.dat' index 9 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=151936 a=0.3 hot', \
     './bench-latency_B.dat' index 10 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=151936 a=0.7 hot', \
     './bench-latency_B.dat' index 11 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=151936 a=0.7 hot'
unset multiplot
set title 'step latency against B on NVIDIA H200 (bars: interquartile range)'
set terminal svg size 1000,950 noenhanced font ',11'
set output './bench-latency_vs_B.svg'
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
set xrange [0.8:320]
set yrange [7.70783:78424.3]
set xtics ('1' 1, '8' 8, '64' 64, '256' 256)
plot './bench-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'batch size B (sequences)'
set ylabel 'interquartile range (% of median)'
plot './bench-latency_B.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=32000 a=0.3 hot', \
     './bench-latency_B.dat' index 1 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=32000 a=0.3 hot', \
     './bench-latency_B.dat' index 2 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=32000 a=0.7 hot', \
     './bench-latency_B.dat' index 3 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=32000 a=0.7 hot', \
     './bench-latency_B.dat' index 4 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=128256 a=0.3 hot', \
     './bench-latency_B.dat' index 5 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=128256 a=0.3 hot', \
     './bench-latency_B.dat' index 6 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=128256 a=0.7 hot', \
     './bench-latency_B.dat' index 7 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=128256 a=0.7 hot', \
     './bench-latency_B.dat' index 8 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=151936 a=0.3 hot', \
     './bench-latency_B.dat' index 9 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=151936 a=0.3 hot', \
     './bench-latency_B.dat' index 10 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=151936 a=0.7 hot', \
     './bench-latency_B.dat' index 11 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=151936 a=0.7 hot'
unset multiplot
set title 'step latency against B on NVIDIA H200 (bars: interquartile range)'
set terminal pdfcairo size 10in,9.5in noenhanced font ',11'
set output './bench-latency_vs_B.pdf'
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
set xrange [0.8:320]
set yrange [7.70783:78424.3]
set xtics ('1' 1, '8' 8, '64' 64, '256' 256)
plot './bench-latency_B.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_B.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'batch size B (sequences)'
set ylabel 'interquartile range (% of median)'
plot './bench-latency_B.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=32000 a=0.3 hot', \
     './bench-latency_B.dat' index 1 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=32000 a=0.3 hot', \
     './bench-latency_B.dat' index 2 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=32000 a=0.7 hot', \
     './bench-latency_B.dat' index 3 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=32000 a=0.7 hot', \
     './bench-latency_B.dat' index 4 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=128256 a=0.3 hot', \
     './bench-latency_B.dat' index 5 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=128256 a=0.3 hot', \
     './bench-latency_B.dat' index 6 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=128256 a=0.7 hot', \
     './bench-latency_B.dat' index 7 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=128256 a=0.7 hot', \
     './bench-latency_B.dat' index 8 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=151936 a=0.3 hot', \
     './bench-latency_B.dat' index 9 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=151936 a=0.3 hot', \
     './bench-latency_B.dat' index 10 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5 title 'cuda_fused K=5 V=151936 a=0.7 hot', \
     './bench-latency_B.dat' index 11 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5 title 'cuda_naive K=5 V=151936 a=0.7 hot'
unset multiplot
set title 'step latency against V on NVIDIA H200 (bars: interquartile range)'
set terminal pngcairo size 1000,950 noenhanced font ',11'
set output './bench-latency_vs_V.png'
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
set xrange [25600:189920]
set yrange [7.70783:78424.3]
set xtics ('32000' 32000, '128256' 128256, '151936' 151936)
plot './bench-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 12 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 3 pt 4 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 13 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 4 pt 6 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 14 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 5 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 15 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 1 pt 5 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'vocabulary size V'
set ylabel 'interquartile range (% of median)'
plot './bench-latency_V.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=1 a=0.3 hot', \
     './bench-latency_V.dat' index 1 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=1 a=0.3 hot', \
     './bench-latency_V.dat' index 2 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=1 a=0.7 hot', \
     './bench-latency_V.dat' index 3 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=1 a=0.7 hot', \
     './bench-latency_V.dat' index 4 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=8 a=0.3 hot', \
     './bench-latency_V.dat' index 5 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=8 a=0.3 hot', \
     './bench-latency_V.dat' index 6 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=8 a=0.7 hot', \
     './bench-latency_V.dat' index 7 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=8 a=0.7 hot', \
     './bench-latency_V.dat' index 8 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=64 a=0.3 hot', \
     './bench-latency_V.dat' index 9 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=64 a=0.3 hot', \
     './bench-latency_V.dat' index 10 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=64 a=0.7 hot', \
     './bench-latency_V.dat' index 11 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=64 a=0.7 hot', \
     './bench-latency_V.dat' index 12 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#E69F00' dt 3 pt 4 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=256 a=0.3 hot', \
     './bench-latency_V.dat' index 13 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#56B4E9' dt 4 pt 6 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=256 a=0.3 hot', \
     './bench-latency_V.dat' index 14 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#000000' dt 5 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=256 a=0.7 hot', \
     './bench-latency_V.dat' index 15 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#882255' dt 1 pt 5 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=256 a=0.7 hot'
unset multiplot
set title 'step latency against V on NVIDIA H200 (bars: interquartile range)'
set terminal svg size 1000,950 noenhanced font ',11'
set output './bench-latency_vs_V.svg'
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
set xrange [25600:189920]
set yrange [7.70783:78424.3]
set xtics ('32000' 32000, '128256' 128256, '151936' 151936)
plot './bench-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 12 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 3 pt 4 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 13 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 4 pt 6 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 14 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 5 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 15 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 1 pt 5 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'vocabulary size V'
set ylabel 'interquartile range (% of median)'
plot './bench-latency_V.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=1 a=0.3 hot', \
     './bench-latency_V.dat' index 1 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=1 a=0.3 hot', \
     './bench-latency_V.dat' index 2 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=1 a=0.7 hot', \
     './bench-latency_V.dat' index 3 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=1 a=0.7 hot', \
     './bench-latency_V.dat' index 4 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=8 a=0.3 hot', \
     './bench-latency_V.dat' index 5 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=8 a=0.3 hot', \
     './bench-latency_V.dat' index 6 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=8 a=0.7 hot', \
     './bench-latency_V.dat' index 7 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=8 a=0.7 hot', \
     './bench-latency_V.dat' index 8 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=64 a=0.3 hot', \
     './bench-latency_V.dat' index 9 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=64 a=0.3 hot', \
     './bench-latency_V.dat' index 10 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=64 a=0.7 hot', \
     './bench-latency_V.dat' index 11 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=64 a=0.7 hot', \
     './bench-latency_V.dat' index 12 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#E69F00' dt 3 pt 4 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=256 a=0.3 hot', \
     './bench-latency_V.dat' index 13 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#56B4E9' dt 4 pt 6 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=256 a=0.3 hot', \
     './bench-latency_V.dat' index 14 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#000000' dt 5 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=256 a=0.7 hot', \
     './bench-latency_V.dat' index 15 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#882255' dt 1 pt 5 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=256 a=0.7 hot'
unset multiplot
set title 'step latency against V on NVIDIA H200 (bars: interquartile range)'
set terminal pdfcairo size 10in,9.5in noenhanced font ',11'
set output './bench-latency_vs_V.pdf'
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
set xrange [25600:189920]
set yrange [7.70783:78424.3]
set xtics ('32000' 32000, '128256' 128256, '151936' 151936)
plot './bench-latency_V.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 12 using 1:2:3:4 with yerrorlines lc rgb '#E69F00' dt 3 pt 4 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 13 using 1:2:3:4 with yerrorlines lc rgb '#56B4E9' dt 4 pt 6 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 14 using 1:2:3:4 with yerrorlines lc rgb '#000000' dt 5 pt 7 ps 0.8 lw 1.5, \
     './bench-latency_V.dat' index 15 using 1:2:3:4 with yerrorlines lc rgb '#882255' dt 1 pt 5 ps 0.8 lw 1.5
unset title
set origin 0,0
set size 1,0.56
set key outside below center horizontal Left reverse maxcols 2
unset logscale y
set yrange [0:*]
set format x '%g'
set xlabel 'vocabulary size V'
set ylabel 'interquartile range (% of median)'
plot './bench-latency_V.dat' index 0 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=1 a=0.3 hot', \
     './bench-latency_V.dat' index 1 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 2 pt 5 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=1 a=0.3 hot', \
     './bench-latency_V.dat' index 2 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 3 pt 9 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=1 a=0.7 hot', \
     './bench-latency_V.dat' index 3 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 4 pt 11 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=1 a=0.7 hot', \
     './bench-latency_V.dat' index 4 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#E69F00' dt 5 pt 13 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=8 a=0.3 hot', \
     './bench-latency_V.dat' index 5 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#56B4E9' dt 1 pt 4 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=8 a=0.3 hot', \
     './bench-latency_V.dat' index 6 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#000000' dt 2 pt 6 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=8 a=0.7 hot', \
     './bench-latency_V.dat' index 7 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#882255' dt 3 pt 7 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=8 a=0.7 hot', \
     './bench-latency_V.dat' index 8 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#0072B2' dt 4 pt 5 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=64 a=0.3 hot', \
     './bench-latency_V.dat' index 9 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#D55E00' dt 5 pt 9 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=64 a=0.3 hot', \
     './bench-latency_V.dat' index 10 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#009E73' dt 1 pt 11 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=64 a=0.7 hot', \
     './bench-latency_V.dat' index 11 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#CC79A7' dt 2 pt 13 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=64 a=0.7 hot', \
     './bench-latency_V.dat' index 12 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#E69F00' dt 3 pt 4 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=256 a=0.3 hot', \
     './bench-latency_V.dat' index 13 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#56B4E9' dt 4 pt 6 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=256 a=0.3 hot', \
     './bench-latency_V.dat' index 14 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#000000' dt 5 pt 7 ps 0.8 lw 1.5 title 'cuda_fused K=5 B=256 a=0.7 hot', \
     './bench-latency_V.dat' index 15 using 1:(100 * ($4 - $3) / $2) with linespoints lc rgb '#882255' dt 1 pt 5 ps 0.8 lw 1.5 title 'cuda_naive K=5 B=256 a=0.7 hot'
unset multiplot
