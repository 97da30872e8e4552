//! Pass-through pin wrappers that remember what the driver would otherwise swallow: GPIO
//! errors and a BUSY line that never releases.

use std::cell::{Cell, RefCell};

use embedded_hal::digital::{ErrorType, InputPin, OutputPin};

use crate::error::DeviceError;

/// What went wrong on the pins during one refresh.
#[derive(Default)]
pub(super) struct Faults {
    gpio: RefCell<Option<DeviceError>>,
    busy_timed_out: Cell<bool>,
}

impl Faults {
    fn gpio_error(&self, pin: &'static str, error: &dyn std::fmt::Debug) {
        let mut slot = self.gpio.borrow_mut();
        if slot.is_none() {
            *slot = Some(DeviceError::Gpio {
                pin,
                message: format!("{error:?}"),
            });
        }
    }

    /// The first fault, GPIO errors before the timeout they may have caused.
    pub(super) fn into_result(self, timeout_s: u32) -> Result<(), DeviceError> {
        if let Some(error) = self.gpio.into_inner() {
            return Err(error);
        }
        if self.busy_timed_out.get() {
            return Err(DeviceError::BusyTimeout { seconds: timeout_s });
        }
        Ok(())
    }
}

/// The BUSY input (low = busy). After `max_polls` busy readings in a row it reads idle from
/// then on, so the driver finishes instead of hanging.
pub(super) struct WatchedBusy<'a, P> {
    pin: P,
    faults: &'a Faults,
    busy_polls: u32,
    max_polls: u32,
}

impl<'a, P: InputPin> WatchedBusy<'a, P> {
    pub(super) fn new(pin: P, faults: &'a Faults, max_polls: u32) -> Self {
        WatchedBusy {
            pin,
            faults,
            busy_polls: 0,
            max_polls,
        }
    }

    fn note(&mut self, busy: Result<bool, P::Error>) -> Result<bool, P::Error> {
        match &busy {
            Ok(true) => {
                self.busy_polls += 1;
                if self.busy_polls > self.max_polls {
                    self.faults.busy_timed_out.set(true);
                }
            }
            Ok(false) => self.busy_polls = 0,
            Err(e) => self.faults.gpio_error("BUSY", e),
        }
        busy
    }
}

impl<P: InputPin> ErrorType for WatchedBusy<'_, P> {
    type Error = P::Error;
}

impl<P: InputPin> InputPin for WatchedBusy<'_, P> {
    fn is_high(&mut self) -> Result<bool, Self::Error> {
        if self.faults.busy_timed_out.get() {
            return Ok(true);
        }
        let busy = self.pin.is_high().map(|high| !high);
        self.note(busy).map(|busy| !busy)
    }

    fn is_low(&mut self) -> Result<bool, Self::Error> {
        if self.faults.busy_timed_out.get() {
            return Ok(false);
        }
        let busy = self.pin.is_low();
        self.note(busy)
    }
}

/// An output (DC or RST) whose errors are remembered.
pub(super) struct WatchedOutput<'a, P> {
    pin: P,
    name: &'static str,
    faults: &'a Faults,
}

impl<'a, P: OutputPin> WatchedOutput<'a, P> {
    pub(super) fn new(pin: P, name: &'static str, faults: &'a Faults) -> Self {
        WatchedOutput { pin, name, faults }
    }
}

impl<P: OutputPin> ErrorType for WatchedOutput<'_, P> {
    type Error = P::Error;
}

impl<P: OutputPin> OutputPin for WatchedOutput<'_, P> {
    fn set_low(&mut self) -> Result<(), Self::Error> {
        let result = self.pin.set_low();
        if let Err(e) = &result {
            self.faults.gpio_error(self.name, e);
        }
        result
    }

    fn set_high(&mut self) -> Result<(), Self::Error> {
        let result = self.pin.set_high();
        if let Err(e) = &result {
            self.faults.gpio_error(self.name, e);
        }
        result
    }
}
