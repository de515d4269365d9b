# A mail spool shaped like filebench's varmail: one flat directory,
# messages replaced, appended with fsync, read back.
set $dir=/srv/mail
set $messages=1000
set $flat=1000000
set $msgsize=cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5)
set $users=16
set $rd=1m
set $app=16k

define fileset name=bigfileset,path=$dir,size=$msgsize,entries=$messages,dirwidth=$flat,prealloc=80

define process name=filereader,instances=1
{
  thread name=mailuser,memsize=10m,instances=$users
  {
    flowop deletefile name=expire,filesetname=bigfileset
    flowop createfile name=deliver,filesetname=bigfileset,fd=1
    flowop appendfilerand name=body,iosize=$app,fd=1
    flowop fsync name=commit1,fd=1
    flowop closefile name=shut1,fd=1
    flowop openfile name=fetch,filesetname=bigfileset,fd=1
    flowop readwholefile name=show,fd=1,iosize=$rd
    flowop appendfilerand name=flag,iosize=$app,fd=1
    flowop fsync name=commit2,fd=1
    flowop closefile name=shut2,fd=1
    flowop openfile name=fetch2,filesetname=bigfileset,fd=1
    flowop readwholefile name=show2,fd=1,iosize=$rd
    flowop closefile name=shut3,fd=1
  }
}
run 60
