// Graph files: each GEMM-shaped op of the runner (fp32 path and int8 path on
// the model device) against plain references written here, and parse errors.
#include "spu/npy.h"
#include "spu/runtime.h"
#include "rt_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::string graph(const std::string &shape, const std::string &nodes, const std::string &out = "y")
{
    return "{\"format\": \"spu-graph\", \"version\": 1, \"name\": \"t\", \"input\": {\"name\": \"x\", "
           "\"shape\": " + shape + "}, \"output\": \"" + out + "\", \"nodes\": [" + nodes + "]}";
}

// symmetric int8 as the docs define it, written independently
int q8(double v, double s)
{
    double r = std::nearbyint(v / s);
    return (int)std::max(-127.0, std::min(127.0, r));
}

struct Net {
    spu_net *net = nullptr;
    ~Net() { spu_net_free(net); }
};

} // namespace

// dense over tokens [T][K]: fp32 vs double, int8 (model) vs an int64 reference
TEST(Graph, DenseFp32AndInt8)
{
    const size_t T = 5, K = 37, N = 19;
    Dir d{"rt_graph"};
    auto w = rnd(N * K, -0.5, 0.5, 1), b = rnd(N, -0.2, 0.2, 2), x = rnd(T * K, -1, 1, 3);
    d.npy("w.npy", { N, K }, w);
    d.npy("b.npy", { N }, b);
    const float s = 1.0f / 127.0f;
    d.text("g.json", graph("[5, 37]", "{\"op\": \"dense\", \"name\": \"fc\", \"inputs\": [\"x\"], \"output\": \"y\", "
                                      "\"weight\": \"w.npy\", \"bias\": \"b.npy\", \"in_scale\": 0.007874015718698502}"));
    Net n;
    char err[512] = "";
    ASSERT_EQ(spu_net_load(&n.net, d.path("g.json").c_str(), err, sizeof err), 0) << err;
    ASSERT_EQ(spu_net_output_size(n.net), T * N);
    std::vector<float> y(T * N), yq(T * N);
    ASSERT_EQ(spu_net_run_fp32(n.net, x.data(), 1, y.data()), 0);
    spu_device *dev;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    spu_net_stats st;
    ASSERT_EQ(spu_net_stats_init(&st, n.net), 0);
    ASSERT_EQ(spu_net_run_int8(n.net, dev, x.data(), 1, yq.data(), &st), 0);
    EXPECT_EQ(st.macs, T * N * K);
    EXPECT_EQ(st.gemms, 1u);
    EXPECT_GT(st.cycles, 0u);
    spu_net_stats_free(&st);
    spu_close(dev);
    for (size_t n2 = 0; n2 < N; n2++) {
        double wmax = 0;
        for (size_t k = 0; k < K; k++)
            wmax = std::max(wmax, (double)std::fabs(w[n2 * K + k]));
        const double ws = (float)(wmax / 127.0);
        for (size_t t = 0; t < T; t++) {
            double ref = b[n2];
            int64_t acc = 0;
            for (size_t k = 0; k < K; k++) {
                ref += (double)x[t * K + k] * w[n2 * K + k];
                acc += (int64_t)q8(x[t * K + k], s) * q8(w[n2 * K + k], ws);
            }
            EXPECT_NEAR(y[t * N + n2], ref, 1e-5);
            // the device adds the bias on the int32 grid: round(b / (s * ws)) (docs/runtime.md)
            const float sc = (float)s * (float)ws;
            const int64_t bq = std::llrint((double)b[n2] / sc);
            EXPECT_NEAR(yq[t * N + n2], (double)(acc + bq) * sc, 1e-5) << t << "," << n2;
            EXPECT_NEAR(yq[t * N + n2], ref, 0.05);   // int8 stays close to fp32
        }
    }
}

// conv2d (stride 2, pad 1, 2 input channels) then maxpool, against loops
TEST(Graph, Conv2dMaxpoolFp32AndInt8)
{
    const size_t C = 2, H = 9, W = 9, OC = 5, K = 3, S = 2, P = 1, OH = 5, OW = 5;
    Dir d{"rt_graph"};
    auto w = rnd(OC * C * K * K, -0.5, 0.5, 4), b = rnd(OC, -0.1, 0.1, 5), x = rnd(C * H * W, 0, 1, 6);
    d.npy("w.npy", { OC, C, K, K }, w);
    d.npy("b.npy", { OC }, b);
    d.text("g.json", graph("[2, 9, 9]",
        "{\"op\": \"conv2d\", \"name\": \"c\", \"inputs\": [\"x\"], \"output\": \"c\", \"weight\": \"w.npy\", "
        "\"bias\": \"b.npy\", \"stride\": 2, \"pad\": 1, \"in_scale\": 0.0078740157},"
        "{\"op\": \"maxpool2d\", \"name\": \"p\", \"inputs\": [\"c\"], \"output\": \"y\", \"kernel\": 2, \"stride\": 2}"));
    Net n;
    char err[512] = "";
    ASSERT_EQ(spu_net_load(&n.net, d.path("g.json").c_str(), err, sizeof err), 0) << err;
    ASSERT_EQ(spu_net_output_size(n.net), OC * 2 * 2);
    std::vector<float> y(OC * 4), yq(OC * 4);
    ASSERT_EQ(spu_net_run_fp32(n.net, x.data(), 1, y.data()), 0);
    spu_device *dev;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    ASSERT_EQ(spu_net_run_int8(n.net, dev, x.data(), 1, yq.data(), nullptr), 0);
    spu_close(dev);
    std::vector<double> conv(OC * OH * OW);
    for (size_t oc = 0; oc < OC; oc++)
        for (size_t oh = 0; oh < OH; oh++)
            for (size_t ow = 0; ow < OW; ow++) {
                double s = b[oc];
                for (size_t c = 0; c < C; c++)
                    for (size_t i = 0; i < K; i++)
                        for (size_t j = 0; j < K; j++) {
                            long h = (long)(oh * S + i) - (long)P, ww = (long)(ow * S + j) - (long)P;
                            if (h >= 0 && ww >= 0 && h < (long)H && ww < (long)W)
                                s += (double)x[(c * H + h) * W + ww] * w[((oc * C + c) * K + i) * K + j];
                        }
                conv[(oc * OH + oh) * OW + ow] = s;
            }
    for (size_t oc = 0; oc < OC; oc++)
        for (size_t i = 0; i < 2; i++)
            for (size_t j = 0; j < 2; j++) {
                double m = -1e9;
                for (size_t a = 0; a < 2; a++)
                    for (size_t bb = 0; bb < 2; bb++)
                        m = std::max(m, conv[(oc * OH + 2 * i + a) * OW + 2 * j + bb]);
                EXPECT_NEAR(y[(oc * 2 + i) * 2 + j], m, 1e-5);
                EXPECT_NEAR(yq[(oc * 2 + i) * 2 + j], m, 0.05);
            }
}

// patch embedding + layernorm + multi-head attention + residual + GELU MLP +
// token mean + softmax, fp32 path vs a double reference of the same network
TEST(Graph, TransformerBlockFp32AndInt8)
{
    const size_t IMG = 8, PATCH = 4, T = 4, D = 8, HEADS = 2, DH = 4, F = 6;
    Dir d{"rt_graph"};
    auto pw = rnd(D * PATCH * PATCH, -0.3, 0.3, 7), pb = rnd(D, -0.1, 0.1, 8), pos = rnd(T * D, -0.1, 0.1, 9);
    auto g1 = rnd(D, 0.8, 1.2, 10), b1 = rnd(D, -0.1, 0.1, 11);
    auto qw = rnd(3 * D * D, -0.5, 0.5, 12), qb = rnd(3 * D, -0.1, 0.1, 13);
    auto ow = rnd(D * D, -0.5, 0.5, 14), ob = rnd(D, -0.1, 0.1, 15);
    auto fw = rnd(F * D, -0.5, 0.5, 16), fb = rnd(F, -0.1, 0.1, 17);
    auto x = rnd(IMG * IMG, 0, 1, 18);
    d.npy("pw.npy", { D, 1, PATCH, PATCH }, pw);
    d.npy("pb.npy", { D }, pb);
    d.npy("pos.npy", { T, D }, pos);
    d.npy("g1.npy", { D }, g1);
    d.npy("b1.npy", { D }, b1);
    d.npy("qw.npy", { 3 * D, D }, qw);
    d.npy("qb.npy", { 3 * D }, qb);
    d.npy("ow.npy", { D, D }, ow);
    d.npy("ob.npy", { D }, ob);
    d.npy("fw.npy", { F, D }, fw);
    d.npy("fb.npy", { F }, fb);
    d.text("g.json", graph("[1, 8, 8]",
        "{\"op\": \"patch_embed\", \"name\": \"e\", \"inputs\": [\"x\"], \"output\": \"t\", \"patch\": 4, "
        " \"weight\": \"pw.npy\", \"bias\": \"pb.npy\", \"pos\": \"pos.npy\", \"in_scale\": 0.0079},"
        "{\"op\": \"layernorm\", \"name\": \"ln\", \"inputs\": [\"t\"], \"output\": \"n\", \"weight\": \"g1.npy\", \"bias\": \"b1.npy\"},"
        "{\"op\": \"attention\", \"name\": \"att\", \"inputs\": [\"n\"], \"output\": \"a\", \"heads\": 2,"
        " \"qkv_weight\": \"qw.npy\", \"qkv_bias\": \"qb.npy\", \"proj_weight\": \"ow.npy\", \"proj_bias\": \"ob.npy\","
        " \"in_scale\": 0.03, \"q_scale\": 0.03, \"k_scale\": 0.03, \"v_scale\": 0.03, \"p_scale\": 0.0078740157, \"o_scale\": 0.03},"
        "{\"op\": \"add\", \"name\": \"res\", \"inputs\": [\"t\", \"a\"], \"output\": \"r\"},"
        "{\"op\": \"dense\", \"name\": \"fc\", \"inputs\": [\"r\"], \"output\": \"h\", \"weight\": \"fw.npy\", \"bias\": \"fb.npy\", \"in_scale\": 0.03},"
        "{\"op\": \"gelu\", \"name\": \"g\", \"inputs\": [\"h\"], \"output\": \"gg\"},"
        "{\"op\": \"token_mean\", \"name\": \"m\", \"inputs\": [\"gg\"], \"output\": \"mm\"},"
        "{\"op\": \"softmax\", \"name\": \"sm\", \"inputs\": [\"mm\"], \"output\": \"f\"},"
        "{\"op\": \"flatten\", \"name\": \"fl\", \"inputs\": [\"f\"], \"output\": \"y\"}"));
    Net n;
    char err[512] = "";
    ASSERT_EQ(spu_net_load(&n.net, d.path("g.json").c_str(), err, sizeof err), 0) << err;
    ASSERT_EQ(spu_net_output_size(n.net), F);

    // reference in double
    std::vector<double> t(T * D), nrm(T * D), qkv(T * 3 * D), o(T * D), r(T * D), h(T * F), mean(F, 0);
    for (size_t p = 0; p < T; p++)
        for (size_t c = 0; c < D; c++) {
            double s = pb[c] + pos[p * D + c];
            const size_t py = p / 2, px = p % 2;
            for (size_t i = 0; i < PATCH; i++)
                for (size_t j = 0; j < PATCH; j++)
                    s += (double)x[(py * PATCH + i) * IMG + px * PATCH + j] * pw[(c * PATCH + i) * PATCH + j];
            t[p * D + c] = s;
        }
    for (size_t p = 0; p < T; p++) {
        double mu = 0, var = 0;
        for (size_t c = 0; c < D; c++)
            mu += t[p * D + c] / D;
        for (size_t c = 0; c < D; c++)
            var += (t[p * D + c] - mu) * (t[p * D + c] - mu) / D;
        for (size_t c = 0; c < D; c++)
            nrm[p * D + c] = (t[p * D + c] - mu) / std::sqrt(var + 1e-5) * g1[c] + b1[c];
    }
    for (size_t p = 0; p < T; p++)
        for (size_t j = 0; j < 3 * D; j++) {
            double s = qb[j];
            for (size_t c = 0; c < D; c++)
                s += nrm[p * D + c] * qw[j * D + c];
            qkv[p * 3 * D + j] = s;
        }
    for (size_t hh = 0; hh < HEADS; hh++)
        for (size_t i = 0; i < T; i++) {
            double sc[T], mx = -1e300, z = 0;
            for (size_t j = 0; j < T; j++) {
                double s = 0;
                for (size_t e = 0; e < DH; e++)
                    s += qkv[i * 3 * D + hh * DH + e] * qkv[j * 3 * D + D + hh * DH + e];
                sc[j] = s / std::sqrt((double)DH);
                mx = std::max(mx, sc[j]);
            }
            for (size_t j = 0; j < T; j++)
                z += (sc[j] = std::exp(sc[j] - mx));
            for (size_t e = 0; e < DH; e++) {
                double s = 0;
                for (size_t j = 0; j < T; j++)
                    s += sc[j] / z * qkv[j * 3 * D + 2 * D + hh * DH + e];
                o[i * D + hh * DH + e] = s;
            }
        }
    for (size_t p = 0; p < T; p++)
        for (size_t c = 0; c < D; c++) {
            double s = ob[c];
            for (size_t e = 0; e < D; e++)
                s += o[p * D + e] * ow[c * D + e];
            r[p * D + c] = t[p * D + c] + s;
        }
    for (size_t p = 0; p < T; p++)
        for (size_t f = 0; f < F; f++) {
            double s = fb[f];
            for (size_t c = 0; c < D; c++)
                s += r[p * D + c] * fw[f * D + c];
            s = 0.5 * s * (1 + std::erf(s / std::sqrt(2.0)));
            mean[f] += s / T;
        }
    double mx = -1e300, z = 0;
    for (double v : mean)
        mx = std::max(mx, v);
    for (double v : mean)
        z += std::exp(v - mx);

    std::vector<float> y(F), yq(F);
    ASSERT_EQ(spu_net_run_fp32(n.net, x.data(), 1, y.data()), 0);
    spu_device *dev;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    spu_net_stats st;
    ASSERT_EQ(spu_net_stats_init(&st, n.net), 0);
    ASSERT_EQ(spu_net_run_int8(n.net, dev, x.data(), 1, yq.data(), &st), 0);
    // patch embed 1 + attention (qkv, 2 heads x 2, proj) 6 + dense 1
    EXPECT_EQ(st.gemms, 8u);
    EXPECT_EQ(st.macs, T * 16 * D + T * D * 3 * D + HEADS * 2 * T * T * DH + T * D * D + T * D * F);
    spu_net_stats_free(&st);
    spu_close(dev);
    for (size_t f = 0; f < F; f++) {
        const double ref = std::exp(mean[f] - mx) / z;
        EXPECT_NEAR(y[f], ref, 1e-5) << f;
        EXPECT_NEAR(yq[f], ref, 0.02) << f;
    }
    // host steps are named per node, the GEMM ops are marked as device ops
    const char *names[64];
    const size_t nh = spu_net_host_ops(n.net, names, 64);
    ASSERT_GT(nh, 5u);
    std::string all;
    for (size_t i = 0; i < nh; i++)
        all += std::string(names[i]) + " ";
    EXPECT_NE(all.find("att:softmax"), std::string::npos) << all;
    EXPECT_NE(all.find("ln:layernorm"), std::string::npos) << all;
    EXPECT_NE(all.find("fc:requant"), std::string::npos) << all;
    EXPECT_EQ(spu_net_node_on_device(n.net, 2), 1);
    EXPECT_EQ(spu_net_node_on_device(n.net, 1), 0);
}

// The attention node with s_scale on a device with the vector unit (int8):
// the device softmax path (docs/runtime.md "Device softmax") equals a plain
// loop of the documented arithmetic bit for bit -- per-channel int8 weights,
// int32 sums with the bias on their grid, score codes from the output
// pipeline (rne, shift from s_scale), exp table, vdiv's rounding, P on the
// 1/128 grid -- and stays near the host-softmax path.
TEST(Graph, DeviceSoftmaxAttentionEqualsPlainLoop)
{
    const size_t T = 16, D = 16, H = 2, DH = 8, B = 3;
    const float in_s = 1.0f / 127, q_s = 0.03f, k_s = 0.03f, v_s = 0.03f, o_s = 0.02f, s_s = 0.05f;
    Dir d{"rt_graph"};
    auto qw = rnd(3 * D * D, -0.5, 0.5, 31), qb = rnd(3 * D, -0.2, 0.2, 32);
    auto ow = rnd(D * D, -0.5, 0.5, 33), ob = rnd(D, -0.1, 0.1, 34);
    auto x = rnd(B * T * D, -1, 1, 35);
    d.npy("qw.npy", { 3 * D, D }, qw);
    d.npy("qb.npy", { 3 * D }, qb);
    d.npy("ow.npy", { D, D }, ow);
    d.npy("ob.npy", { D }, ob);
    char node[1024];
    std::snprintf(node, sizeof node,
                  "{\"op\": \"attention\", \"name\": \"att\", \"inputs\": [\"x\"], \"output\": \"y\", \"heads\": 2,"
                  " \"qkv_weight\": \"qw.npy\", \"qkv_bias\": \"qb.npy\", \"proj_weight\": \"ow.npy\", \"proj_bias\": \"ob.npy\","
                  " \"in_scale\": %.9g, \"q_scale\": %.9g, \"k_scale\": %.9g, \"v_scale\": %.9g, \"p_scale\": 0.0078740157,"
                  " \"o_scale\": %.9g, \"s_scale\": %.9g}",
                  (double)in_s, (double)q_s, (double)k_s, (double)v_s, (double)o_s, (double)s_s);
    d.text("g.json", graph("[16, 16]", node));
    Net n;
    char err[512] = "";
    ASSERT_EQ(spu_net_load(&n.net, d.path("g.json").c_str(), err, sizeof err), 0) << err;

    auto quant = [](const float *v, int8_t *q, size_t m, float s) {   // clamp(rne(v / s), +-127)
        const float inv = 1.0f / s;
        for (size_t i = 0; i < m; i++) q[i] = (int8_t)std::max(-127.0f, std::min(127.0f, std::nearbyint(v[i] * inv)));
    };
    // dense on int8 codes: weights per output channel, bias on the int32 grid
    auto dense = [&](const std::vector<float> &in, const std::vector<float> &w, const std::vector<float> &bias,
                     size_t M, size_t N, size_t K, float s_in) {
        std::vector<int8_t> xq(M * K);
        quant(in.data(), xq.data(), M * K, s_in);
        std::vector<float> out(M * N);
        for (size_t c = 0; c < N; c++) {
            float m = 0;
            for (size_t k = 0; k < K; k++) m = std::max(m, std::fabs(w[c * K + k]));
            const float ws = m / 127.0f, sc = s_in * ws, inv = 1.0f / ws;
            const double db = std::nearbyint((double)bias[c] / (double)sc);
            for (size_t i = 0; i < M; i++) {
                int64_t acc = (int64_t)db;
                for (size_t k = 0; k < K; k++)
                    acc += xq[i * K + k] * (int)std::max(-127.0f, std::min(127.0f, std::nearbyint(w[c * K + k] * inv)));
                out[i * N + c] = (float)(int32_t)acc * sc + 0.0f;
            }
        }
        return out;
    };
    const std::vector<float> qkv = dense(x, qw, qb, B * T, 3 * D, D, in_s);
    const double unit = (double)q_s * (double)k_s / std::sqrt((double)DH);
    unsigned sh = 0;
    while (unit * std::ldexp(1.0, (int)sh) < (double)s_s) sh++;
    uint8_t lut[256];
    for (int u = 0; u < 256; u++) {
        const int dd = (int8_t)u;
        lut[u] = dd > 0 ? 127 : (uint8_t)std::lround(127.0 * std::exp(dd * unit * std::ldexp(1.0, (int)sh)));
    }
    std::vector<float> o(B * T * D);
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < H; h++) {
            std::vector<float> fq(T * DH), fk(T * DH), fv(T * DH);
            for (size_t t = 0; t < T; t++)
                for (size_t j = 0; j < DH; j++) {
                    const float *r = &qkv[(b * T + t) * 3 * D];
                    fq[t * DH + j] = r[h * DH + j];
                    fk[t * DH + j] = r[D + h * DH + j];
                    fv[t * DH + j] = r[2 * D + h * DH + j];
                }
            std::vector<int8_t> cq(T * DH), ck(T * DH), cv(T * DH), p(T * T);
            quant(fq.data(), cq.data(), T * DH, q_s);
            quant(fk.data(), ck.data(), T * DH, k_s);
            quant(fv.data(), cv.data(), T * DH, v_s);
            for (size_t i = 0; i < T; i++) {
                int c[T], m = -128;
                for (size_t j = 0; j < T; j++) {
                    int64_t acc = 0;
                    for (size_t e = 0; e < DH; e++) acc += cq[i * DH + e] * ck[j * DH + e];
                    // rne(acc / 2^sh) by quotient and remainder, then int8 saturation
                    const int64_t den = (int64_t)1 << sh, fl = (acc - ((acc % den + den) % den)) / den;
                    const int64_t rem = acc - fl * den;
                    int64_t qv = fl + (2 * rem > den || (2 * rem == den && (fl & 1)));
                    c[j] = (int)std::max<int64_t>(-128, std::min<int64_t>(127, qv));
                    m = std::max(m, c[j]);
                }
                int e[T];
                int64_t S = 0;
                for (size_t j = 0; j < T; j++) S += e[j] = lut[(uint8_t)std::max(-128, c[j] - m)];
                for (size_t j = 0; j < T; j++) {
                    const int64_t num = (int64_t)e[j] * 128, qv = num / S + (2 * (num % S) >= S);
                    p[i * T + j] = (int8_t)std::min<int64_t>(127, qv);
                }
            }
            for (size_t t = 0; t < T; t++)
                for (size_t j = 0; j < DH; j++) {
                    int32_t acc = 0;
                    for (size_t u = 0; u < T; u++) acc += p[t * T + u] * cv[u * DH + j];
                    o[(b * T + t) * D + h * DH + j] = (float)acc * (v_s / 128.0f);
                }
        }
    const std::vector<float> want = dense(o, ow, ob, B * T, D, D, o_s);

    spu_device *dev = nullptr, *novec = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    ASSERT_EQ(spu_open(&novec, "model?vector=0"), 0);
    std::vector<float> y(B * T * D), yh(B * T * D);
    ASSERT_EQ(spu_net_run_int8(n.net, dev, x.data(), B, y.data(), nullptr), 0);
    ASSERT_EQ(spu_net_run_int8(n.net, novec, x.data(), B, yh.data(), nullptr), 0);
    spu_close(dev);
    spu_close(novec);
    size_t diff_host = 0;
    for (size_t i = 0; i < y.size(); i++) {
        ASSERT_EQ(std::memcmp(&y[i], &want[i], sizeof(float)), 0) << i << ": " << y[i] << " vs " << want[i];
        EXPECT_NEAR(y[i], yh[i], 0.1) << i;      // the host softmax path (float softmax, P on 1/127)
        diff_host += y[i] != yh[i];
    }
    EXPECT_GT(diff_host, 0u);                    // the two paths are not the same computation
    // the host steps of a vector device lack the softmax; without the unit it is there
    const size_t hv = spu_net_host_ops_on(n.net, SPU_NET_INT8, SPU_FEATURE_VECTOR, nullptr, 0);
    const size_t hh = spu_net_host_ops_on(n.net, SPU_NET_INT8, 0, nullptr, 0);
    std::vector<const char *> nv(hv), nh(hh);
    spu_net_host_ops_on(n.net, SPU_NET_INT8, SPU_FEATURE_VECTOR, nv.data(), hv);
    spu_net_host_ops_on(n.net, SPU_NET_INT8, 0, nh.data(), hh);
    EXPECT_EQ(hv + 1, hh);
    for (const char *s : nv) EXPECT_EQ(std::string(s).find("softmax"), std::string::npos) << s;
    EXPECT_EQ(std::string(nh.back()), "att:softmax");
}

// --- parse errors --------------------------------------------------------------
class GraphErrors : public ::testing::Test {
protected:
    Dir d{"rt_graph"};
    char err[512] = "";
    void SetUp() override
    {
        d.npy("w.npy", { 4, 6 }, rnd(24, -1, 1, 1));
        d.npy("b.npy", { 4 }, rnd(4, -1, 1, 2));
    }
    int load(const std::string &text)
    {
        d.text("g.json", text);
        spu_net *n = nullptr;
        err[0] = 0;
        int rc = spu_net_load(&n, d.path("g.json").c_str(), err, sizeof err);
        if (rc == 0)
            spu_net_free(n);
        else
            EXPECT_EQ(n, nullptr);
        return rc;
    }
    std::string dense(const std::string &extra = "", const std::string &w = "w.npy", const std::string &in = "x")
    {
        return "{\"op\": \"dense\", \"name\": \"fc\", \"inputs\": [\"" + in + "\"], \"output\": \"y\", \"weight\": \"" + w +
               "\", \"bias\": \"b.npy\", \"in_scale\": 0.01" + extra + "}";
    }
};

TEST_F(GraphErrors, ValidGraphLoads)
{
    EXPECT_EQ(load(graph("[6]", dense())), 0) << err;
}

TEST_F(GraphErrors, BadJson)
{
    EXPECT_EQ(load("{\"format\": \"spu-graph\",\n \"nodes\": [ {\"op\": }"), SPU_EPARSE);
    EXPECT_NE(std::string(err).find("invalid JSON near line 2"), std::string::npos) << err;
    EXPECT_EQ(load("[]"), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("spu-graph"), std::string::npos) << err;
    spu_net *n = nullptr;
    EXPECT_EQ(spu_net_load(&n, "/nonexistent/g.json", err, sizeof err), SPU_EIO);
}

TEST_F(GraphErrors, MissingWeightFile)
{
    EXPECT_EQ(load(graph("[6]", dense("", "nothere.npy"))), SPU_EIO);
    EXPECT_NE(std::string(err).find("node 'fc'"), std::string::npos) << err;
    EXPECT_NE(std::string(err).find("nothere.npy"), std::string::npos) << err;
    std::string no_w = "{\"op\": \"dense\", \"name\": \"fc\", \"inputs\": [\"x\"], \"output\": \"y\", \"in_scale\": 1}";
    EXPECT_EQ(load(graph("[6]", no_w)), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("missing \"weight\""), std::string::npos) << err;
}

TEST_F(GraphErrors, ShapeMismatch)
{
    EXPECT_EQ(load(graph("[7]", dense())), SPU_EFORMAT);   // 7 features, weight [4 x 6]
    EXPECT_NE(std::string(err).find("has shape [4 x 6], expected [N x 7]"), std::string::npos) << err;
    d.npy("b5.npy", { 5 }, rnd(5, -1, 1, 3));
    std::string badb = "{\"op\": \"dense\", \"name\": \"fc\", \"inputs\": [\"x\"], \"output\": \"y\", \"weight\": \"w.npy\", "
                       "\"bias\": \"b5.npy\", \"in_scale\": 1}";
    EXPECT_EQ(load(graph("[6]", badb)), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("b5.npy has shape [5]"), std::string::npos) << err;
    std::string add = dense() + ", {\"op\": \"add\", \"name\": \"a\", \"inputs\": [\"x\", \"y\"], \"output\": \"z\"}";
    EXPECT_EQ(load(graph("[6]", add, "z")), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("differ in shape"), std::string::npos) << err;
    std::string conv = "{\"op\": \"conv2d\", \"name\": \"c\", \"inputs\": [\"x\"], \"output\": \"y\", \"weight\": \"w.npy\", "
                       "\"bias\": \"b.npy\", \"in_scale\": 1}";
    EXPECT_EQ(load(graph("[6]", conv)), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("expected [C x H x W]"), std::string::npos) << err;
}

TEST_F(GraphErrors, StructureErrors)
{
    EXPECT_EQ(load(graph("[6]", dense("", "w.npy", "nosuch"))), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("input 'nosuch' is not defined"), std::string::npos) << err;
    EXPECT_EQ(load(graph("[6]", "{\"op\": \"conv3d\", \"name\": \"c\", \"inputs\": [\"x\"], \"output\": \"y\"}")), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("unknown op \"conv3d\""), std::string::npos) << err;
    EXPECT_EQ(load(graph("[6]", dense() + ", {\"op\": \"relu\", \"name\": \"r\", \"inputs\": [\"y\"], \"output\": \"y\"}")), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("new tensor"), std::string::npos) << err;
    EXPECT_EQ(load(graph("[6]", dense(), "nothing")), SPU_EFORMAT);
    EXPECT_EQ(load(graph("[6]", "{\"op\": \"dense\", \"name\": \"fc\", \"inputs\": [\"x\"], \"output\": \"y\", "
                                "\"weight\": \"w.npy\", \"bias\": \"b.npy\", \"in_scale\": -1}")), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("in_scale"), std::string::npos) << err;
    EXPECT_EQ(load(graph("[6]", dense() + ", {\"op\": \"relu\", \"name\": \"fc\", \"inputs\": [\"y\"], \"output\": \"z\"}", "z")), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("used twice"), std::string::npos) << err;
}

TEST_F(GraphErrors, WeightDtypeAndNaN)
{
    spu_tensor t;
    size_t shp[2] = { 4, 6 };
    ASSERT_EQ(spu_tensor_alloc(&t, SPU_NPY_INT8, 2, shp), 0);
    ASSERT_EQ(spu_npy_save(d.path("w8.npy").c_str(), &t), 0);
    spu_tensor_free(&t);
    EXPECT_EQ(load(graph("[6]", dense("", "w8.npy"))), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("expected float32"), std::string::npos) << err;
    auto w = rnd(24, -1, 1, 1);
    w[7] = NAN;
    d.npy("wn.npy", { 4, 6 }, w);
    EXPECT_EQ(load(graph("[6]", dense("", "wn.npy"))), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("NaN"), std::string::npos) << err;
}

// a relu that no GEMM feeds (it reads the graph input) and only dense nodes
// read: on a device with the vector unit it runs there, on the int8 codes the
// dense would quantize (docs/runtime.md); the logits are those of the same
// run without the unit, bit for bit, and the host no longer names the relu
TEST(Graph, VectorReluOnUnfusedRelu)
{
    const size_t K = 24, N = 7, B = 3;
    Dir d{"rt_graph"};
    auto w = rnd(N * K, -0.5, 0.5, 21), b = rnd(N, -0.2, 0.2, 22), x = rnd(B * K, -1, 1, 23);
    d.npy("w.npy", { N, K }, w);
    d.npy("b.npy", { N }, b);
    d.text("g.json", graph("[24]",
        "{\"op\": \"relu\", \"name\": \"r\", \"inputs\": [\"x\"], \"output\": \"h\"},"
        "{\"op\": \"dense\", \"name\": \"fc\", \"inputs\": [\"h\"], \"output\": \"y\", "
        "\"weight\": \"w.npy\", \"bias\": \"b.npy\", \"in_scale\": 0.007874015718698502}"));
    Net n;
    char err[512] = "";
    ASSERT_EQ(spu_net_load(&n.net, d.path("g.json").c_str(), err, sizeof err), 0) << err;
    const size_t hv = spu_net_host_ops_on(n.net, SPU_NET_INT8, SPU_FEATURE_VECTOR, nullptr, 0);
    const size_t hh = spu_net_host_ops_on(n.net, SPU_NET_INT8, 0, nullptr, 0);
    std::vector<const char *> names(hv);
    spu_net_host_ops_on(n.net, SPU_NET_INT8, SPU_FEATURE_VECTOR, names.data(), hv);
    for (const char *s : names)
        EXPECT_EQ(strstr(s, "r:relu"), nullptr) << s;
    EXPECT_LT(hv, hh);
    spu_device *vec = nullptr, *novec = nullptr;
    ASSERT_EQ(spu_open(&vec, "model"), 0);
    ASSERT_EQ(spu_open(&novec, "model?vector=0"), 0);
    std::vector<float> yv(B * N), yh(B * N);
    spu_net_stats sv, sh;
    ASSERT_EQ(spu_net_stats_init(&sv, n.net), 0);
    ASSERT_EQ(spu_net_stats_init(&sh, n.net), 0);
    ASSERT_EQ(spu_net_run_int8(n.net, vec, x.data(), B, yv.data(), &sv), 0);
    ASSERT_EQ(spu_net_run_int8(n.net, novec, x.data(), B, yh.data(), &sh), 0);
    EXPECT_EQ(0, memcmp(yv.data(), yh.data(), yv.size() * sizeof(float)));
    EXPECT_GT(sv.cycles, sh.cycles);   // the vector unit's cycles are device cycles
    spu_net_stats_free(&sv);
    spu_net_stats_free(&sh);
    spu_close(vec);
    spu_close(novec);
}
