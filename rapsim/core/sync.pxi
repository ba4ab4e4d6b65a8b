# Host threads and the few atomic operations the threaded scheduler needs
# (schedule.pxi): POSIX threads, spin locks on the ring links that join two
# node groups (ring.pxi), and atomic loads and stores of the words threads
# share (a node's lower bound, the scheduler's horizon and flags).  Nothing
# here is module-level state: every lock and flag lives in a Link, a Node or
# the per-call scheduler record (Sched).

cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    ctypedef struct pthread_mutex_t:
        pass
    ctypedef struct pthread_cond_t:
        pass
    int pthread_create(pthread_t* thread, const void* attr,
                       void* (*start)(void*) noexcept nogil, void* arg)
    int pthread_join(pthread_t thread, void** result)
    int pthread_mutex_init(pthread_mutex_t* m, const void* attr)
    int pthread_mutex_destroy(pthread_mutex_t* m)
    int pthread_mutex_lock(pthread_mutex_t* m)
    int pthread_mutex_unlock(pthread_mutex_t* m)
    int pthread_cond_init(pthread_cond_t* c, const void* attr)
    int pthread_cond_destroy(pthread_cond_t* c)
    int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m)
    int pthread_cond_broadcast(pthread_cond_t* c)

cdef extern from "<sched.h>" nogil:
    int sched_yield()

cdef extern from *:
    """
    #include <stdint.h>
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
    """
    void rap_spin_lock(int* p) noexcept nogil
    void rap_spin_unlock(int* p) noexcept nogil
    int64_t rap_load64(int64_t* p) noexcept nogil
    void rap_store64(int64_t* p, int64_t v) noexcept nogil
    int rap_load32(int* p) noexcept nogil
    void rap_store32(int* p, int v) noexcept nogil
    void RAP_CPU_RELAX() noexcept nogil
