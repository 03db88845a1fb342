/* Start-up code of the C firmware for QEMU's mps2-an386 (Cortex-M4F): the vector table, and a
   reset handler that initialises .data and .bss, switches the FPU on, opens newlib's semihosting
   file handles (librdimon), runs main() and passes its return value to exit(), which newlib
   reports to QEMU through semihosting (QEMU's exit status). Linked with -nostartfiles: newlib's
   own crt0 would ask the debugger for the memory layout instead of using the linker script's. */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern int main(void);
extern void initialise_monitor_handles(void);

void Reset_Handler(void);

/* crti/crtn are not linked (-nostartfiles); newlib's init/fini arrays still call these. */
void _init(void) {}
void _fini(void) {}

/* Any fault or unexpected interrupt: report failure to the host and stop. */
static void Fault_Handler(void)
{
    _Exit(3);
}

__attribute__((section(".isr_vector"), used))
static void (*const vector_table[16 + 32])(void) = {
    (void (*)(void))&_estack, /* initial stack pointer */
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    0, 0, 0, 0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    Fault_Handler, /* SysTick */
    /* 32 external interrupts, none enabled */
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler,
};

void Reset_Handler(void)
{
    uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;)
        *dst++ = *src++;
    for (uint32_t *dst = &_sbss; dst < &_ebss;)
        *dst++ = 0;
#if defined(__ARM_FP)
    /* CPACR: full access to coprocessors 10 and 11 (the FPU), before any FP instruction. */
    *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    initialise_monitor_handles();
    exit(main());
}
