/* Dump the help texts of instance domains, one a line: domain, serial,
 * then each level's status and text (tab separated, escaped as
 * dump-descs.c escapes them). Reads "DOMAIN SERIAL" lines on stdin. */
#include <pcp/pmapi.h>
#include <stdio.h>
static void esc(const char *s){ for(;*s;s++){ if(*s=='\n')fputs("\\n",stdout); else if(*s=='\\')fputs("\\\\",stdout); else if(*s=='\t')fputs("\\t",stdout); else putchar(*s);} }
int main(void){ unsigned d,s; int ctx=pmNewContext(PM_CONTEXT_HOST,"local:"); if(ctx<0){fprintf(stderr,"ctx %s\n",pmErrStr(ctx));return 1;}
 while(scanf("%u %u",&d,&s)==2){ pmInDom in=pmInDom_build(d,s); char*one=NULL,*help=NULL;
  int s1=pmLookupInDomText(in,PM_TEXT_ONELINE,&one); int s2=pmLookupInDomText(in,PM_TEXT_HELP,&help);
  printf("%u\t%u\t%d\t",d,s,s1); if(s1>=0)esc(one); printf("\t%d\t",s2); if(s2>=0)esc(help); printf("\n"); }
 return 0; }
