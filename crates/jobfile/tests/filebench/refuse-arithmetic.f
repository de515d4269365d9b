set $dir=/srv/x
set $n=100
set $total=$n * 4
run 5
