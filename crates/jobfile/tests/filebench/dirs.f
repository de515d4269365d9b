# Directories: leafdirs, makedir and removedir; set mode quit alldone.
set $dir=/srv/dirs
set mode quit alldone
define fileset name=tree,path=$dir,size=0,leafdirs=5000,dirwidth=50,dirgamma=1500
define process name=mkrm,instances=1
{
  thread name=m,memsize=1m,instances=8
  {
    flowop makedir name=md,filesetname=tree
    flowop removedir name=rd,filesetname=tree
  }
}
run 10
