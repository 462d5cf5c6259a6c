# Regenerates ../configkeys_gen.go from an apache/kafka clone (KAFKA=path, default the fetch tool's mirror):
#   python3 configkeys.py 0.9.0.1 0.10.0.1 ... 3.9.0-rc3 HEAD   (the tags named in configkeys_gen.go)
import subprocess, re, sys, json
import os
R=os.environ.get('KAFKA', '/work/.mirror/apache+kafka/repo')
def show(tag, path):
    try:
        return subprocess.run(['git','-C',R,'show',f'{tag}:{path}'],capture_output=True,text=True,check=True).stdout
    except subprocess.CalledProcessError:
        return None
base='clients/src/main/java/org/apache/kafka/'
files={
 'ProducerConfig':'clients/producer/ProducerConfig.java',
 'ConsumerConfig':'clients/consumer/ConsumerConfig.java',
 'AdminClientConfig':'clients/admin/AdminClientConfig.java',
 'CommonClientConfigs':'clients/CommonClientConfigs.java',
 'SslConfigs':'common/config/SslConfigs.java',
 'SaslConfigs':'common/config/SaslConfigs.java',
 'MetricsContext':'common/metrics/MetricsContext.java',
 'SecurityConfig':'common/config/SecurityConfig.java',
}
strdef=re.compile(r'(?:public|private|protected)?\s*static\s+final\s+String\s+(\w+)\s*=\s*((?:"[^"]*"|\w+(?:\.\w+)?)(?:\s*\+\s*(?:"[^"]*"|\w+(?:\.\w+)?))*)\s*;', re.S)
def consts(tag):
    c={}
    raw={}
    for cls,p in files.items():
        s=show(tag, base+p)
        if s is None: continue
        for m in strdef.finditer(s):
            raw[(cls,m.group(1))]=m.group(2)
    def ev(cls, expr, depth=0):
        out=''
        for part in re.split(r'\s*\+\s*', expr.strip()):
            if part.startswith('"'):
                out+=part[1:-1]
            else:
                if '.' in part: c2,n=part.split('.',1)
                else: c2,n=cls,part
                if (c2,n) in raw and depth<10:
                    x=ev(c2, raw[(c2,n)], depth+1)
                    if x is None: return None
                    out+=x
                else:
                    # unqualified constant imported from another class
                    found=[k for k in raw if k[1]==n]
                    if found and depth<10:
                        x=ev(found[0][0], raw[found[0]], depth+1)
                        if x is None: return None
                        out+=x
                    else:
                        return None
        return out
    for k,e in raw.items():
        v=ev(k[0],e)
        if v is not None: c[k]=v
    return c
defre=re.compile(r"\.define(?:Internal)?\(\s*([\w.]+)\s*,")
def defined(tag, cls, c, seen=None):
    s=show(tag, base+files[cls])
    if s is None: return None
    keys=set()
    # only the ConfigDef chains: from "new ConfigDef()" on
    for m in defre.finditer(s):
        name=m.group(1)
        if '.' in name: c2,n=name.split('.',1)
        else: c2,n=cls,name
        v=c.get((c2,n))
        if v is None:
            found=[k for k in c if k[1]==n]
            v=c[found[0]] if found else None
        if v is None:
            print('unresolved',tag,cls,name,file=sys.stderr); continue
        keys.add(v)
    if 'withClientSslSupport' in s or 'addClientSslSupport' in s:
        keys|=defined_fn(tag,'SslConfigs','addClientSslSupport',c)
    if 'withClientSaslSupport' in s or 'addClientSaslSupport' in s:
        keys|=defined_fn(tag,'SaslConfigs','addClientSaslSupport',c)
    return keys
def defined_fn(tag, cls, fn, c):
    s=show(tag, base+files[cls])
    i=s.find('void '+fn)
    body=s[i:s.find('\n    }',i)]
    keys=set()
    for m in defre.finditer(body):
        name=m.group(1)
        n=name.split('.')[-1]
        v=c.get((cls,n)) or next((c[k] for k in c if k[1]==n),None)
        if v: keys.add(v)
        else: print('unresolved',tag,cls,name,file=sys.stderr)
    return keys
tags=sys.argv[1:]
res={}
for t in tags:
    c=consts(t)
    res[t]={cls:sorted(defined(t,cls,c) or []) for cls in ['ProducerConfig','ConsumerConfig','AdminClientConfig']}
r=res
for t in tags: print(t, {k:len(v) for k,v in res[t].items()})

# --- table


tags=list(r.keys())
def ver(t):
    if t=='HEAD': return (4,0,0)
    p=t.split('-')[0].split('.')
    return (int(p[0]),int(p[1]),int(p[2]) if p[0]=='0' else 0)
cls={'ProducerConfig':'cliProducer','ConsumerConfig':'cliConsumer','AdminClientConfig':'cliAdmin'}
rows={}
for c in cls:
    allk=set()
    for t in tags: allk|=set(r[t][c])
    for k in allk:
        present=[ver(t) for t in tags if k in r[t][c]]
        since=present[0]
        # last tag present; until = first version after it where absent
        last=present[-1]
        idx=[ver(t) for t in tags].index(last)
        until=None
        if idx+1<len(tags): until=ver(tags[idx+1])
        # check contiguity
        vs=[ver(t) for t in tags]
        gaps=[vs[i] for i in range(vs.index(since),idx+1) if k not in r[tags[i]][c]]
        assert not gaps,(k,c,gaps)
        rows[(k,c)]=(since,until)
def v(x): return 'rel(%d, %d, %d)'%x if x else '0'
out=[]
for (k,c),(s,u) in sorted(rows.items()):
    if s==(0,9,0): s=None
    out.append('\t{%s, %s, %s, %s},'%(json.dumps(k),cls[c],v(s),v(u)))
hdr='''// The client settings every Kafka release defines, read off apache/kafka's
// ProducerConfig.java, ConsumerConfig.java and AdminClientConfig.java (their
// ConfigDef .define() calls, the constants of CommonClientConfigs,
// SslConfigs, SaslConfigs, SecurityConfig and MetricsContext, and
// addClientSslSupport/addClientSaslSupport) at the tags
// %s
// and trunk of 2024-10-25 (4.0), by testdata/configkeys.py over those tags;
// regenerate rather than edit a row by hand.

package verdict

// settingKeys: one row per client setting and client type, with the first
// release that defines it (0: 0.9 or earlier) and the first that no longer
// does (0: still defined).
var settingKeys = []settingKey{
''' % '\n// '.join(', '.join(x) for x in [ [t for t in tags if t!='HEAD'][i:i+9] for i in range(0,len(tags)-1,9)])
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'configkeys_gen.go'),'w').write(hdr+'\n'.join(out)+'\n}\n')
print(len(out))
