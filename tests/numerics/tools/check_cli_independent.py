#!/usr/bin/env python3
"""check_cli_independent.py -- an independent check of `spu convert` and
`spu quantize` on fresh random inputs (optional; needs /usr/bin/python3 with numpy).

Usage: /usr/bin/python3 tests/numerics/tools/check_cli_independent.py [build/bin/spu]

Shares no code with the library: target values are enumerated from the format
definitions and compared in exact rational arithmetic (fractions); f16 is checked
against numpy astype(float16), bf16 against the rounding-bias bit trick, and
mxfp8_e4m3 quantization against an MX implementation written here.
Exits 1 on any mismatch."""


import numpy as np, subprocess, struct, math
from fractions import Fraction as F
import sys
SPU = sys.argv[1] if len(sys.argv) > 1 else "build/bin/spu"
bad_total = 0
def fmt_values(ebits, mbits, bias, kind):
    vals={}
    for code in range(1<<(1+ebits+mbits)):
        s=code>>(ebits+mbits); e=(code>>mbits)&((1<<ebits)-1); m=code&((1<<mbits)-1)
        if kind=="ieee" and e==(1<<ebits)-1: continue
        if kind=="e4m3" and e==(1<<ebits)-1 and m==(1<<mbits)-1: continue
        v = F(m,1<<mbits)*F(2)**(1-bias) if e==0 else (1+F(m,1<<mbits))*F(2)**(e-bias)
        vals[code]= -v if s else v
    return vals
FMTS={"e4m3":(4,3,7,"e4m3"),"e5m2":(5,2,15,"ieee"),"e3m2":(3,2,3,"mx"),"e2m3":(2,3,1,"mx"),"e2m1":(2,1,1,"mx")}
def conv(x, name, mode):   # rne / rna, sat
    e,m,b,k=FMTS[name]; vals=fmt_values(e,m,b,k)
    if math.isnan(x): return None
    pos=sorted(set(v for v in vals.values() if v>=0)); mx=pos[-1]
    a=F(x) if not math.isinf(x) else F(10**40)
    s= x<0 or (x==0 and math.copysign(1,x)<0)
    a=abs(a)
    if a>=mx: q=mx
    else:
        i=max(j for j,v in enumerate(pos) if v<=a); lo=pos[i]; hi=pos[i+1]
        if a==lo: q=lo
        elif a-lo<hi-a: q=lo
        elif a-lo>hi-a: q=hi
        else:
            if mode=="rna": q=hi
            else:
                # even = lowest mantissa bit 0 of the code
                clo=[c for c,v in vals.items() if v==lo and (c>>(e+m))==0][0]
                q=lo if clo%2==0 else hi
    sign=1<<(e+m)
    cands=[c for c,v in vals.items() if abs(v)==q and ((c & sign)!=0)==s]
    return cands[0]
rng=np.random.default_rng(77)
x=np.concatenate([rng.standard_normal(3000).astype(np.float32)*rng.choice([1e-3,0.1,1,10,300],3000).astype(np.float32),
                  np.array([0.0,-0.0,448,449,464,465,500,1e6,-1e6,2**-9,2**-10,57344,61440],np.float32)])
for name in FMTS:
  for mode in ["rne","rna"]:
    out=subprocess.run([SPU,"convert","--from","f32","--to",name,"--round",mode,"--sat"],input=x.tobytes(),capture_output=True,check=True).stdout
    got=list(out); bad=0
    for i,v in enumerate(x):
        ref=conv(float(v),name,mode)
        if ref is None: continue
        if got[i]!=ref:
            bad+=1
            if bad<4: print("MISMATCH",name,mode,v,got[i],ref)
    bad_total+=bad
    print(f"spu convert f32->{name} --round {mode} --sat: {len(x)} inputs, {bad} mismatches")
# f16 and bf16 vs numpy (independent converters)
out=subprocess.run([SPU,"convert","--from","f32","--to","f16","--ovf"],input=x.tobytes(),capture_output=True,check=True).stdout
with np.errstate(over="ignore"):
    ok = np.array_equal(np.frombuffer(out,np.uint16), x.astype(np.float16).view(np.uint16))
print("f16 --ovf vs numpy astype(float16):", ok); bad_total += not ok
# quantize mxfp8_e4m3 vs an independent MX implementation (floor scale, RNE, sat)
X=rng.standard_normal((7,96)).astype(np.float32)*np.float32(3.7); X[2,:32]=0; X[3,5]=1e-30
import tempfile, os
tmp=tempfile.mkdtemp()
np.save(os.path.join(tmp,"x.npy"),X)
subprocess.run([SPU,"quantize","--format","mxfp8_e4m3","--in",os.path.join(tmp,"x.npy"),"--out",os.path.join(tmp,"y.npy")],check=True,capture_output=True)
Y=np.load(os.path.join(tmp,"y.npy")); ref=np.zeros_like(X)
for r in range(7):
    for b0 in range(0,96,32):
        blk=X[r,b0:b0+32]; amax=float(np.max(np.abs(blk)))
        if amax==0: ref[r,b0:b0+32]=0; continue
        e=math.floor(math.log2(amax)) - 8   # emax(e4m3)=8
        e=max(-127,min(127,e))
        for j,v in enumerate(blk):
            c=conv(float(F(float(v))/F(2)**e),"e4m3","rne")
            vals=fmt_values(4,3,7,"e4m3"); ref[r,b0+j]=float(vals[c]*F(2)**e)
ok=np.array_equal(Y,ref)
print("quantize mxfp8_e4m3 vs independent MX:", ok, "max diff", float(np.max(np.abs(Y-ref)))); bad_total += not ok
# bf16 (RNE via the classic rounding bias, independent of the library) and ovf
xb=x[np.isfinite(x)]
u=xb.view(np.uint32).astype(np.uint64); ref=((u + 0x7FFF + ((u>>16)&1))>>16).astype(np.uint16)
out=subprocess.run([SPU,"convert","--from","f32","--to","bf16","--ovf"],input=xb.tobytes(),capture_output=True,check=True).stdout
ok=np.array_equal(np.frombuffer(out,np.uint16), ref)
print("bf16 --ovf vs bias-rounding bit trick:", ok); bad_total += not ok
print("independent check:", "PASS" if bad_total == 0 else "FAIL")
sys.exit(1 if bad_total else 0)
