#% var dir=/mnt/x
# The file puts its filesets under $path; a dir= it never reads is
# refused rather than writing to /tmp.
set $path=/tmp
define fileset name=a,path=$path,entries=10,size=4k,prealloc
define process name=p {
  thread name=t {
    flowop statfile name=s1,filesetname=a
  }
}
run 1
