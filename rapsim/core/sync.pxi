# Host threads and the few atomic operations the threaded scheduler needs
# (schedule.pxi): POSIX threads, spin locks on the ring links that join two
# node groups (ring.pxi), and atomic loads and stores of the words threads
# share (a node's lower bound, the scheduler's horizon and flags).  Nothing
# here is module-level state: every lock and flag lives in a Link, a Node or
# the per-call scheduler record (Sched).
#
# POSIX threads come with the C library on Linux and macOS (setup.py passes
# -pthread); no OpenMP is needed.  Where <pthread.h> is missing (a Windows
# compiler), the wrappers below build without it and rap_thread_start
# always fails: run_machine_threads then runs the machine on the calling
# thread (RAP_HAVE_THREADS = 0, rapsim._sim.HOST_THREADS is False; CFLAGS=-DRAP_NO_THREADS
# builds such an extension anywhere).

cdef extern from *:
    """
    #include <stdint.h>
    #if (defined(_WIN32) && !defined(__MINGW32__)) || defined(RAP_NO_THREADS)
    #define RAP_HAVE_THREADS 0
    typedef struct { int unused; } rap_thread_t;
    typedef struct { int unused; } rap_mutex_t;
    typedef struct { int unused; } rap_cond_t;
    static int rap_thread_start(rap_thread_t* t, void* (*f)(void*), void* a) { return -1; }
    static void rap_thread_join(rap_thread_t* t) { }
    static void rap_mutex_init(rap_mutex_t* m) { }
    static void rap_mutex_destroy(rap_mutex_t* m) { }
    static void rap_mutex_lock(rap_mutex_t* m) { }
    static void rap_mutex_unlock(rap_mutex_t* m) { }
    static void rap_cond_init(rap_cond_t* c) { }
    static void rap_cond_destroy(rap_cond_t* c) { }
    static void rap_cond_wait(rap_cond_t* c, rap_mutex_t* m) { }
    static void rap_cond_broadcast(rap_cond_t* c) { }
    static void rap_yield(void) { }
    static int64_t rap_now_ns(void) { return 0; }
    static int64_t rap_thread_cpu_ns(void) { return 0; }
    #else
    #include <pthread.h>
    #include <sched.h>
    #define RAP_HAVE_THREADS 1
    typedef pthread_t rap_thread_t;
    typedef pthread_mutex_t rap_mutex_t;
    typedef pthread_cond_t rap_cond_t;
    static int rap_thread_start(rap_thread_t* t, void* (*f)(void*), void* a) {
        return pthread_create(t, NULL, f, a);
    }
    static void rap_thread_join(rap_thread_t* t) { pthread_join(*t, NULL); }
    static void rap_mutex_init(rap_mutex_t* m) { pthread_mutex_init(m, NULL); }
    static void rap_mutex_destroy(rap_mutex_t* m) { pthread_mutex_destroy(m); }
    static void rap_mutex_lock(rap_mutex_t* m) { pthread_mutex_lock(m); }
    static void rap_mutex_unlock(rap_mutex_t* m) { pthread_mutex_unlock(m); }
    static void rap_cond_init(rap_cond_t* c) { pthread_cond_init(c, NULL); }
    static void rap_cond_destroy(rap_cond_t* c) { pthread_cond_destroy(c); }
    static void rap_cond_wait(rap_cond_t* c, rap_mutex_t* m) { pthread_cond_wait(c, m); }
    static void rap_cond_broadcast(rap_cond_t* c) { pthread_cond_broadcast(c); }
    static void rap_yield(void) { sched_yield(); }
    #include <time.h>
    /* the host's clocks, for the threads' own figures (Machine.thread_stats):
       never read by a scheduling decision */
    static int64_t rap_now_ns(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
    }
    static int64_t rap_thread_cpu_ns(void) {
        struct timespec t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
    }
    #endif
    #if defined(__x86_64__) || defined(__i386__)
    #define RAP_CPU_RELAX() __builtin_ia32_pause()
    #else
    #define RAP_CPU_RELAX() ((void)0)
    #endif
    static inline void rap_spin_lock(int* p) {
        while (__atomic_exchange_n(p, 1, __ATOMIC_ACQUIRE)) {
            while (__atomic_load_n(p, __ATOMIC_RELAXED)) RAP_CPU_RELAX();
        }
    }
    static inline void rap_spin_unlock(int* p) { __atomic_store_n(p, 0, __ATOMIC_RELEASE); }
    static inline int64_t rap_load64(int64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
    static inline void rap_store64(int64_t* p, int64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
    static inline int rap_load32(int* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
    static inline void rap_store32(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
    static inline void rap_add64(int64_t* p, int64_t v) { __atomic_add_fetch(p, v, __ATOMIC_ACQ_REL); }
    """
    int RAP_HAVE_THREADS
    ctypedef struct rap_thread_t:
        pass
    ctypedef struct rap_mutex_t:
        pass
    ctypedef struct rap_cond_t:
        pass
    int rap_thread_start(rap_thread_t* t, void* (*f)(void*) noexcept nogil, void* a) noexcept nogil
    void rap_thread_join(rap_thread_t* t) noexcept nogil
    void rap_mutex_init(rap_mutex_t* m) noexcept nogil
    void rap_mutex_destroy(rap_mutex_t* m) noexcept nogil
    void rap_mutex_lock(rap_mutex_t* m) noexcept nogil
    void rap_mutex_unlock(rap_mutex_t* m) noexcept nogil
    void rap_cond_init(rap_cond_t* c) noexcept nogil
    void rap_cond_destroy(rap_cond_t* c) noexcept nogil
    void rap_cond_wait(rap_cond_t* c, rap_mutex_t* m) noexcept nogil
    void rap_cond_broadcast(rap_cond_t* c) noexcept nogil
    void rap_yield() noexcept nogil
    int64_t rap_now_ns() noexcept nogil
    int64_t rap_thread_cpu_ns() noexcept nogil
    void rap_spin_lock(int* p) noexcept nogil
    void rap_spin_unlock(int* p) noexcept nogil
    int64_t rap_load64(int64_t* p) noexcept nogil
    void rap_store64(int64_t* p, int64_t v) noexcept nogil
    int rap_load32(int* p) noexcept nogil
    void rap_store32(int* p, int v) noexcept nogil
    void rap_add64(int64_t* p, int64_t v) noexcept nogil
    void RAP_CPU_RELAX() noexcept nogil
