#include <pcp/pmapi.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static void esc(const char *s){ for(;*s;s++){ if(*s=='\n')fputs("\\n",stdout); else if(*s=='\\')fputs("\\\\",stdout); else if(*s=='\t')fputs("\\t",stdout); else putchar(*s);} }
int main(int argc,char**argv){ char line[1024]; int ctx=pmNewContext(PM_CONTEXT_HOST,"local:"); if(ctx<0){fprintf(stderr,"ctx %s\n",pmErrStr(ctx));return 1;}
 if(argc>1&&strcmp(argv[1],"-i")==0){ /* instance domains: one serial of domain 60 a line in, serial and both texts out */
  while(fgets(line,sizeof line,stdin)){ int serial=atoi(line); char*one=NULL,*help=NULL; pmInDom in=pmInDom_build(60,serial);
   if(pmLookupInDomText(in,PM_TEXT_ONELINE,&one)<0||pmLookupInDomText(in,PM_TEXT_HELP,&help)<0)continue;
   printf("%d\t",serial); esc(one); putchar('\t'); esc(help); putchar('\n'); }
  return 0; }
 while(fgets(line,sizeof line,stdin)){ line[strcspn(line,"\n")]=0; char*n=line; pmID id; int s=pmLookupName(1,(const char**)&n,&id); if(s<0){fprintf(stderr,"%s: %s\n",n,pmErrStr(s));continue;}
  pmDesc d; pmLookupDesc(id,&d); char*one=NULL,*help=NULL; int s1=pmLookupText(id,PM_TEXT_ONELINE,&one); int s2=pmLookupText(id,PM_TEXT_HELP,&help);
  unsigned u; memcpy(&u,&d.units,4);
  printf("%s\t%u\t%u\t%d\t%u\t%d\t%u\t%u\t%u\t0x%08x\t",n,pmID_domain(id),pmID_cluster(id),pmID_item(id),d.type,d.indom==PM_INDOM_NULL?-1:(int)pmInDom_serial(d.indom),d.sem,0,0,u);
  printf("%d\t",s1); if(s1>=0)esc(one); printf("\t%d\t",s2); if(s2>=0)esc(help); printf("\n"); }
 return 0; }
