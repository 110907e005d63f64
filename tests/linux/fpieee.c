/* IEEE floating point as Debian's compilers build it (-mieee: every
 * operation carries /SU, software completion): NaN and infinity printed,
 * 1/0, overflow, 0/0 and sqrt(-1) giving their IEEE results with the
 * status fetestexcept reads (the kernel completes the trap as Linux's
 * entArith does), feraiseexcept (osf_setsysinfo's SSI_IEEE_RAISE_EXCEPTION),
 * the rounding modes, denormal operands (QEMU traps before computing: the
 * kernel compares and computes them in software, kernel/soft_float.h),
 * long double, strtod/printf round trips, and an enabled trap
 * (feenableexcept) ending in the program's SIGFPE handler. Every such trap
 * killed the program with SIGFPE before. Output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sigjmp_buf env_jb;
static void onfpe_info(int sig, siginfo_t *si, void *uc) { siglongjmp(env_jb, 1); }
static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = onfpe_info;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGFPE, &sa, NULL);
}

static volatile double zero = 0.0, one = 1.0, tiny = 1e-310, big = 1e308;

int main(void) {
  printf("%f %f %f %e\n", NAN, -NAN, INFINITY, -INFINITY);
  printf("%g %g %a %a\n", DBL_MIN, DBL_MAX, 1.0, 0.1);
  printf("denorm %g %a %d\n", tiny, tiny, fpclassify(tiny) == FP_SUBNORMAL);
  printf("denorm*2 %g half %g sum %a diff %a\n", tiny * 2, tiny / 2, tiny + tiny, tiny - 1e-300);
  printf("denorm*big %g /big %g min*min %g\n", tiny * 1e300, tiny / 1e300, DBL_MIN * DBL_MIN);
  printf("denorm as float %g as long %ld sqrt %g\n", (double)(float)tiny, (long)tiny, sqrt(tiny));
  for (int i = 0; i < 4; i++) {
    static const int m[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    fesetround(m[i]);
    volatile double t = tiny, three = 3.0;
    printf("denorm/3 mode %d: %a %a\n", i, t / three, -t / three);
  }
  fesetround(FE_TONEAREST);
  printf("ldbl dig %d mant %d max %Lg eps %Lg\n", LDBL_DIG, LDBL_MANT_DIG, LDBL_MAX, LDBL_EPSILON);
  long double ld = 1.0L / 3.0L;
  printf("1/3L %.30Lf\n", ld);
  printf("sqrtl(2) %.30Lf\n", sqrtl(2.0L));
  printf("rounding %d\n", fegetround() == FE_TONEAREST);
  feclearexcept(FE_ALL_EXCEPT);
  volatile double d = one / 3.0;
  (void)d;
  printf("inexact after 1/3: %d\n", fetestexcept(FE_INEXACT) != 0);
  feclearexcept(FE_ALL_EXCEPT);
  d = big * 10.0;
  printf("overflow: %d val %g\n", fetestexcept(FE_OVERFLOW) != 0, d);
  feclearexcept(FE_ALL_EXCEPT);
  d = one / zero;
  printf("divbyzero: %d val %g\n", fetestexcept(FE_DIVBYZERO) != 0, d);
  feclearexcept(FE_ALL_EXCEPT);
  d = zero / zero;
  printf("invalid: %d nan %d\n", fetestexcept(FE_INVALID) != 0, isnan(d));
  feclearexcept(FE_ALL_EXCEPT);
  d = sqrt(-one);
  printf("sqrt(-1) nan %d invalid %d\n", isnan(d), fetestexcept(FE_INVALID) != 0);
  feraiseexcept(FE_UNDERFLOW);
  printf("raised underflow %d\n", fetestexcept(FE_UNDERFLOW) != 0);
  fenv_t env;
  fegetenv(&env);
  feclearexcept(FE_ALL_EXCEPT);
  fesetenv(&env);
  printf("env restores underflow %d\n", fetestexcept(FE_UNDERFLOW) != 0);
  feclearexcept(FE_ALL_EXCEPT);
  /* rounding modes */
  int modes[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  const char *mn[4] = {"nearest", "up", "down", "zero"};
  for (int i = 0; i < 4; i++) {
    int r = fesetround(modes[i]);
    volatile double x = 1.0, y = 3.0;
    printf("%s: set %d get-ok %d 1/3=%.20f -1/3=%.20f rint(2.5)=%g\n", mn[i], r,
           fegetround() == modes[i], x / y, -x / y, rint(2.5));
  }
  fesetround(FE_TONEAREST);
  /* conversions */
  const char *s[] = {"1e-320",   "0x1p-1074", "inf", "-nan", "1e400", "2.2250738585072011e-308",
                     "123.456e2"};
  for (int i = 0; i < 7; i++) {
    char *e;
    double v = strtod(s[i], &e);
    printf("strtod %s -> %.17g %a\n", s[i], v, v);
  }
  printf("strtold %.25Lg\n", strtold("0.1", NULL));
  printf("%.0f %.0f %.0f %.0f\n", 0.5, 1.5, 2.5, -0.5);
  printf("%.3e %.10g %g\n", 123456789.0, M_PI, 1e-5);
  printf("signbit -0 %d copysign %g\n", signbit(-0.0), copysign(3.0, -0.0));
  printf("nextafter %a %a\n", nextafter(1.0, 2.0), nextafter(0.0, 1.0));
  printf("frexp/ldexp %g\n", ldexp(0.75, 10));
  printf("lgamma %.10f tgamma %.10f erf %.10f\n", lgamma(10.5), tgamma(5.5), erf(0.3));
  printf("fma %.17g\n", fma(0.1, 10.0, -1.0));
  printf("float %.9g %.9g\n", (float)M_PI, nextafterf(1.0f, 2.0f));
  printf("long long %lld %llu\n", (long long)-9223372036854775807LL - 1,
         (unsigned long long)18446744073709551615ULL);
  printf("int conv %ld %ld\n", lrint(2.5), lround(2.5));
  /* an enabled trap: SIGFPE to the handler, after the result */
  feclearexcept(FE_ALL_EXCEPT);
  install();
  printf("enable %d\n", feenableexcept(FE_DIVBYZERO) >= 0);
  if (sigsetjmp(env_jb, 1) == 0) {
    d = one / zero;
    printf("no trap? %g\n", d);
  } else
    printf("SIGFPE caught\n");
  fedisableexcept(FE_ALL_EXCEPT);
  d = one / zero;
  printf("disabled again: %g\n", d);
  if (sigsetjmp(env_jb, 1) == 0) {
    feenableexcept(FE_OVERFLOW);
    feraiseexcept(FE_OVERFLOW);
    printf("raise no trap?\n");
  } else
    printf("feraiseexcept SIGFPE caught\n");
  fedisableexcept(FE_ALL_EXCEPT);
  printf("enabled now %d\n", fegetexcept());
  return 0;
}
