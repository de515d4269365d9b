set $dir=/srv/x
define fileset name=s,path=$dir,size=4k,entries=10,dirwidth=10,prealloc
domultisync value=1
run 5
