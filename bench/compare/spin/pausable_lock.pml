/*
 * The pausable-lock benchmark model (see ../README.md) in Promela, for Spin 6.5.
 *
 * One process runs a loop whose every option is one action of the model as a single d_step,
 * so every state Spin stores is a state of the model and nothing else: no intermediate states,
 * no process bookkeeping that changes. Mutual exclusion is an assertion made by the only action
 * that can add a holder (Receive of Ok); it is checked in the state that action produces.
 *
 * Parameters (macros, give them with spin -D...; run.sh does):
 *   NCLIENTS (N, 1..8)  TTL  CMAX (C)  PLEN (P)  BUDGET (B)  HORIZON (H)  ROUNDS (R)
 * with HORIZON + max(TTL, PLEN) <= 255: every field is a byte.
 */

#ifndef NCLIENTS
#define NCLIENTS 2
#endif
#ifndef TTL
#define TTL 5
#endif
#ifndef CMAX
#define CMAX 2
#endif
#ifndef PLEN
#define PLEN 3
#endif
#ifndef BUDGET
#define BUDGET 1
#endif
#ifndef HORIZON
#define HORIZON 12
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif

/* pc */
#define IDLE      0
#define WAIT_ACQ  1
#define HOLDING   2
#define WAIT_REL  3
#define DONE      4
/* req: client -> server */
#define REQ_NONE  0
#define REQ_ACQ   1
#define REQ_REL   2
/* resp: server -> client */
#define RESP_NONE     0
#define RESP_OK       1
#define RESP_FAIL     2
#define RESP_RELEASED 3

byte now;
byte owner;            /* 0 = free, else client id 1..N */
byte expiry;           /* 0 when free */
byte pauses_left = BUDGET;
byte pc[NCLIENTS];
byte req[NCLIENTS];
byte resp[NCLIENTS];
byte since[NCLIENTS];  /* tick at which the client entered Holding, 0 otherwise */
byte resume[NCLIENTS]; /* tick at which its pause ends, 0 when running */
byte rounds[NCLIENTS] = ROUNDS;

/* EACH(m) is m(0) m(1) ... m(NCLIENTS - 1). */
#if NCLIENTS > 1
#define IF1(x) x
#else
#define IF1(x)
#endif
#if NCLIENTS > 2
#define IF2(x) x
#else
#define IF2(x)
#endif
#if NCLIENTS > 3
#define IF3(x) x
#else
#define IF3(x)
#endif
#if NCLIENTS > 4
#define IF4(x) x
#else
#define IF4(x)
#endif
#if NCLIENTS > 5
#define IF5(x) x
#else
#define IF5(x)
#endif
#if NCLIENTS > 6
#define IF6(x) x
#else
#define IF6(x)
#endif
#if NCLIENTS > 7
#define IF7(x) x
#else
#define IF7(x)
#endif
#define EACH(m) m(0) IF1(m(1)) IF2(m(2)) IF3(m(3)) IF4(m(4)) IF5(m(5)) IF6(m(6)) IF7(m(7))
/* The same, for use inside a macro that EACH expands (cpp expands no macro inside itself). */
#define EACH_INNER(m) m(0) IF1(m(1)) IF2(m(2)) IF3(m(3)) IF4(m(4)) IF5(m(5)) IF6(m(6)) IF7(m(7))

#define RUNNING(I) (resume[I] == 0)

/* How many clients hold the lock. */
#define PLUS_HOLDING(I) + (pc[I] == HOLDING)
#define HOLDERS (0 EACH_INNER(PLUS_HOLDING))

/* A7's condition for one client. */
#define AND_MAY_TICK(I) && (req[I] == REQ_NONE \
    && (resp[I] == RESP_NONE || !RUNNING(I)) \
    && !(RUNNING(I) && pc[I] == HOLDING && now - since[I] >= CMAX))

/* A7's pause ending for one client. */
#define THEN_END_PAUSE(I) ; if :: (resume[I] != 0 && resume[I] <= now) -> resume[I] = 0 \
                                :: else -> skip fi

/* A1..A6 for client I (id I + 1). */
#define CLIENT(I) \
    /* A1 Request */ \
    :: d_step { (RUNNING(I) && pc[I] == IDLE) -> req[I] = REQ_ACQ; pc[I] = WAIT_ACQ } \
    /* A2 Grant */ \
    :: d_step { (req[I] == REQ_ACQ) -> \
        req[I] = REQ_NONE; \
        if \
        :: (owner == 0) -> owner = I + 1; expiry = now + TTL; resp[I] = RESP_OK \
        :: else -> resp[I] = RESP_FAIL \
        fi } \
    /* A3 Receive */ \
    :: d_step { (RUNNING(I) && resp[I] != RESP_NONE) -> \
        if \
        :: (resp[I] == RESP_OK) -> pc[I] = HOLDING; since[I] = now; resp[I] = RESP_NONE; \
            assert(HOLDERS <= 1) \
        :: (resp[I] == RESP_FAIL) -> pc[I] = IDLE; resp[I] = RESP_NONE \
        :: (resp[I] == RESP_RELEASED) -> \
            rounds[I] = rounds[I] - 1; \
            if \
            :: (rounds[I] == 0) -> pc[I] = DONE \
            :: else -> pc[I] = IDLE \
            fi; \
            resp[I] = RESP_NONE \
        fi } \
    /* A4 Exit */ \
    :: d_step { (RUNNING(I) && pc[I] == HOLDING) -> req[I] = REQ_REL; pc[I] = WAIT_REL; since[I] = 0 } \
    /* A5 Unlock */ \
    :: d_step { (req[I] == REQ_REL) -> \
        req[I] = REQ_NONE; \
        if \
        :: (owner == I + 1) -> owner = 0; expiry = 0 \
        :: else -> skip \
        fi; \
        resp[I] = RESP_RELEASED } \
    /* A6 Pause */ \
    :: d_step { (RUNNING(I) && pc[I] != DONE && pauses_left > 0) -> \
        resume[I] = now + PLEN; pauses_left = pauses_left - 1 }

active proctype pausable_lock()
{
end:
    do
    EACH(CLIENT)
    /* A7 Tick */
    :: d_step { (now < HORIZON EACH(AND_MAY_TICK)) ->
        now = now + 1;
        if
        :: (owner != 0 && expiry <= now) -> owner = 0; expiry = 0
        :: else -> skip
        fi
        EACH(THEN_END_PAUSE) }
    od
}
