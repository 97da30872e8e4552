//! The SPI and GPIO traffic of one full refresh, recorded through embedded-hal-mock and
//! asserted exactly.
//!
//! Each mock checks its own line (SPI bytes, DC levels, RST levels, BUSY reads, delays); a
//! thin recorder in front of them logs all calls in one timeline, which is decoded into
//! panel steps (commands with their data, BUSY waits) and compared with the documented
//! sequence plus the extras epd-waveshare 0.6 sends.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{ErrorType as PinErrorType, InputPin, OutputPin};
use embedded_hal::spi::{ErrorType as SpiErrorType, Operation, SpiDevice};
use embedded_hal_mock::eh1::delay::{CheckedDelay, NoopDelay, Transaction as DelayTx};
use embedded_hal_mock::eh1::digital::{Mock as PinMock, State, Transaction as PinTx};
use embedded_hal_mock::eh1::spi::{Mock as SpiMock, Transaction as SpiTx};
use embedded_hal_mock::eh1::MockError;
use hakase_device::{refresh, render_pages, DeviceError, Frame, PLANE_BYTES};

#[derive(Debug, Clone, PartialEq)]
enum Event {
    Spi(Vec<u8>),
    Dc(bool),
    Rst(bool),
    /// A BUSY read; true = busy (the line is low).
    Busy(bool),
    DelayUs(u32),
}

type Log = Rc<RefCell<Vec<Event>>>;

struct Rec<T> {
    inner: T,
    log: Log,
    kind: fn(bool) -> Event,
}

impl<T: SpiErrorType> SpiErrorType for Rec<T> {
    type Error = T::Error;
}

impl<T: SpiDevice> SpiDevice for Rec<T> {
    fn transaction(&mut self, ops: &mut [Operation<'_, u8>]) -> Result<(), Self::Error> {
        let mut bytes = Vec::new();
        for op in ops.iter() {
            if let Operation::Write(data) = op {
                bytes.extend_from_slice(data);
            }
        }
        self.log.borrow_mut().push(Event::Spi(bytes));
        self.inner.transaction(ops)
    }
}

impl<T: PinErrorType> PinErrorType for Rec<T> {
    type Error = T::Error;
}

impl<T: OutputPin> OutputPin for Rec<T> {
    fn set_low(&mut self) -> Result<(), Self::Error> {
        self.log.borrow_mut().push((self.kind)(false));
        self.inner.set_low()
    }
    fn set_high(&mut self) -> Result<(), Self::Error> {
        self.log.borrow_mut().push((self.kind)(true));
        self.inner.set_high()
    }
}

impl<T: InputPin> InputPin for Rec<T> {
    fn is_high(&mut self) -> Result<bool, Self::Error> {
        let high = self.inner.is_high()?;
        self.log.borrow_mut().push(Event::Busy(!high));
        Ok(high)
    }
    fn is_low(&mut self) -> Result<bool, Self::Error> {
        let low = self.inner.is_low()?;
        self.log.borrow_mut().push(Event::Busy(low));
        Ok(low)
    }
}

impl<T: DelayNs> DelayNs for Rec<T> {
    fn delay_ns(&mut self, ns: u32) {
        self.log.borrow_mut().push(Event::DelayUs(ns / 1000));
        self.inner.delay_ns(ns)
    }
    fn delay_us(&mut self, us: u32) {
        self.log.borrow_mut().push(Event::DelayUs(us));
        self.inner.delay_us(us)
    }
    fn delay_ms(&mut self, ms: u32) {
        self.log.borrow_mut().push(Event::DelayUs(ms * 1000));
        self.inner.delay_ms(ms)
    }
}

/// For recorders of things other than output pins, which never log a level.
fn no_level(_: bool) -> Event {
    unreachable!("only output pins log levels")
}

fn rec<T>(inner: T, log: &Log, kind: fn(bool) -> Event) -> Rec<T> {
    Rec {
        inner,
        log: log.clone(),
        kind,
    }
}

/// What the panel sees, one level above the wires.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// RST high 10 ms, low 10 ms, high, then 200 ms.
    Reset,
    Command(u8, Vec<u8>),
    /// BUSY read busy (with a poll delay in between) until it read idle.
    WaitBusy,
    DelayUs(u32),
}

fn decode(events: &[Event]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut i = 0;
    let mut dc_high = false;
    while i < events.len() {
        match &events[i] {
            Event::Rst(true)
                if events.get(i..i + 6)
                    == Some(&[
                        Event::Rst(true),
                        Event::DelayUs(10_000),
                        Event::Rst(false),
                        Event::DelayUs(10_000),
                        Event::Rst(true),
                        Event::DelayUs(200_000),
                    ]) =>
            {
                steps.push(Step::Reset);
                i += 6;
            }
            Event::Dc(level) => {
                dc_high = *level;
                i += 1;
            }
            Event::Spi(bytes) if !dc_high => {
                assert_eq!(bytes.len(), 1, "a command is one byte");
                steps.push(Step::Command(bytes[0], Vec::new()));
                i += 1;
            }
            Event::Spi(bytes) => {
                match steps.last_mut() {
                    Some(Step::Command(_, data)) => data.extend_from_slice(bytes),
                    other => panic!("data {bytes:?} after {other:?}"),
                }
                i += 1;
            }
            Event::Busy(_) => {
                while let Some(Event::Busy(true)) = events.get(i) {
                    assert_eq!(events.get(i + 1), Some(&Event::DelayUs(10_000)));
                    i += 2;
                }
                assert_eq!(events.get(i), Some(&Event::Busy(false)));
                steps.push(Step::WaitBusy);
                i += 1;
            }
            Event::DelayUs(us) => {
                steps.push(Step::DelayUs(*us));
                i += 1;
            }
            other => panic!("unexpected {other:?} at {i}"),
        }
    }
    steps
}

/// The documented steps, with epd-waveshare's extras marked.
fn expected_steps(frame: &Frame) -> Vec<Step> {
    use Step::*;
    vec![
        Reset,
        Command(0x06, vec![0x17, 0x17, 0x17]), // booster soft start
        Command(0x04, vec![]),                 // power on
        DelayUs(5_000),                        // extra: driver waits 5 ms before polling
        WaitBusy,
        Command(0x00, vec![0x8F]),              // panel setting
        Command(0x50, vec![0x77]),              // VCOM/data interval: white border | 7
        Command(0x61, vec![0x68, 0x00, 0xD4]),  // resolution 104 × 212
        Command(0x82, vec![0x0A]),              // extra: VCM DC setting
        WaitBusy,                               // extra: end of the driver's init
        Command(0x10, frame.black().to_vec()),  // black plane
        Command(0x13, frame.colour().to_vec()), // colour plane
        WaitBusy,                               // extra: after the colour plane
        Command(0x12, vec![]),                  // display refresh
        WaitBusy,
        Command(0x50, vec![0xF7]), // extra: floating border before power off
        Command(0x02, vec![]),     // power off
        WaitBusy,                  // extra: the driver waits after power off
        Command(0x07, vec![0xA5]), // deep sleep
    ]
}

/// Low-level expectations for each mock, derived from the steps.
struct Expectations {
    spi: Vec<SpiTx<u8>>,
    dc: Vec<PinTx>,
    rst: Vec<PinTx>,
    busy: Vec<PinTx>,
    delay: Vec<DelayTx>,
}

fn expectations(steps: &[Step]) -> Expectations {
    let mut e = Expectations {
        spi: Vec::new(),
        dc: Vec::new(),
        rst: Vec::new(),
        busy: Vec::new(),
        delay: Vec::new(),
    };
    let byte = |spi: &mut Vec<SpiTx<u8>>, b: u8| {
        spi.push(SpiTx::transaction_start());
        spi.push(SpiTx::write_vec(vec![b]));
        spi.push(SpiTx::transaction_end());
    };
    for step in steps {
        match step {
            Step::Reset => {
                e.rst.extend([
                    PinTx::set(State::High),
                    PinTx::set(State::Low),
                    PinTx::set(State::High),
                ]);
                e.delay.extend([
                    DelayTx::delay_us(10_000),
                    DelayTx::delay_us(10_000),
                    DelayTx::delay_us(200_000),
                ]);
            }
            Step::Command(cmd, data) => {
                e.dc.push(PinTx::set(State::Low));
                byte(&mut e.spi, *cmd);
                // The driver raises DC once per data call; resolution is sent as three calls.
                let calls = if *cmd == 0x61 {
                    data.len()
                } else {
                    usize::from(!data.is_empty())
                };
                e.dc.extend((0..calls).map(|_| PinTx::set(State::High)));
                for &b in data {
                    byte(&mut e.spi, b);
                }
            }
            Step::WaitBusy => {
                // Busy (low) once, one poll delay, then idle (high).
                e.busy.push(PinTx::get(State::Low));
                e.delay.push(DelayTx::delay_us(10_000));
                e.busy.push(PinTx::get(State::High));
            }
            Step::DelayUs(us) => e.delay.push(DelayTx::delay_us(*us)),
        }
    }
    e
}

#[test]
fn full_refresh_sends_the_documented_sequence_and_the_page() {
    let frames = render_pages(&common::rentora_view()).expect("render");
    let frame = &frames[0];
    assert_ne!(frame, &Frame::blank());
    let steps = expected_steps(frame);
    let e = expectations(&steps);

    let log: Log = Rc::default();
    let mut spi_mock = SpiMock::new(&e.spi);
    let mut dc_mock = PinMock::new(&e.dc);
    let mut rst_mock = PinMock::new(&e.rst);
    let mut busy_mock = PinMock::new(&e.busy);
    let mut delay_mock = CheckedDelay::new(&e.delay);

    let mut spi = rec(spi_mock.clone(), &log, no_level);
    let busy = rec(busy_mock.clone(), &log, no_level);
    let dc = rec(dc_mock.clone(), &log, Event::Dc);
    let rst = rec(rst_mock.clone(), &log, Event::Rst);
    let mut delay = rec(delay_mock.clone(), &log, no_level);

    refresh(&mut spi, busy, dc, rst, &mut delay, frame).expect("refresh");

    spi_mock.done();
    dc_mock.done();
    rst_mock.done();
    busy_mock.done();
    delay_mock.done();

    let recorded = decode(&log.borrow());
    assert_eq!(recorded, steps);

    // The planes on the wire are the page's planes, in full.
    let plane = |cmd: u8| {
        recorded
            .iter()
            .find_map(|s| match s {
                Step::Command(c, data) if *c == cmd => Some(data.clone()),
                _ => None,
            })
            .expect("plane sent")
    };
    assert_eq!(plane(0x10).len(), PLANE_BYTES);
    assert_eq!(plane(0x10), frame.black().to_vec());
    assert_eq!(plane(0x13), frame.colour().to_vec());

    // Every SPI write is a single byte in its own transaction (SINGLE_BYTE_WRITE), so the
    // wire carries 1 + 3 + 1 + 1 + 1 + 3 + 1 + 2 × (1 + 2756) + 1 + 2 + 1 + 2 bytes.
    let spi_bytes = log
        .borrow()
        .iter()
        .filter(|ev| matches!(ev, Event::Spi(_)))
        .count();
    assert_eq!(
        spi_bytes,
        4 + 1 + 2 + 2 + 4 + 2 + 2 * (1 + PLANE_BYTES) + 1 + 2 + 1 + 2
    );
}

/// An SPI device that accepts anything, for tests about the pins.
struct AnySpi;

impl SpiErrorType for AnySpi {
    type Error = core::convert::Infallible;
}

impl SpiDevice for AnySpi {
    fn transaction(&mut self, _ops: &mut [Operation<'_, u8>]) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// A pin that accepts every write and always reads idle (high).
struct AnyPin;

impl PinErrorType for AnyPin {
    type Error = core::convert::Infallible;
}

impl OutputPin for AnyPin {
    fn set_low(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
    fn set_high(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

impl InputPin for AnyPin {
    fn is_high(&mut self) -> Result<bool, Self::Error> {
        Ok(true)
    }
    fn is_low(&mut self) -> Result<bool, Self::Error> {
        Ok(false)
    }
}

/// An output whose first write fails, as a GPIO line lost mid-refresh would.
struct FailsOnce {
    failed: bool,
}

impl PinErrorType for FailsOnce {
    type Error = embedded_hal::digital::ErrorKind;
}

impl OutputPin for FailsOnce {
    fn set_low(&mut self) -> Result<(), Self::Error> {
        self.set_high()
    }
    fn set_high(&mut self) -> Result<(), Self::Error> {
        if self.failed {
            Ok(())
        } else {
            self.failed = true;
            Err(embedded_hal::digital::ErrorKind::Other)
        }
    }
}

#[test]
fn a_busy_line_that_never_releases_is_a_timeout_not_a_hang() {
    // 90 s of 10 ms polls in the first wait, then one more busy read trips the limit; after
    // that BUSY is not read again.
    let polls = 90 * 100 + 1;
    let busy_tx: Vec<PinTx> = (0..polls).map(|_| PinTx::get(State::Low)).collect();
    let mut busy = PinMock::new(&busy_tx);
    let err = refresh(
        &mut AnySpi,
        busy.clone(),
        AnyPin,
        AnyPin,
        &mut NoopDelay::new(),
        &Frame::blank(),
    )
    .expect_err("times out");
    assert!(
        matches!(err, DeviceError::BusyTimeout { seconds: 90 }),
        "{err}"
    );
    busy.done();
}

#[test]
fn gpio_errors_the_driver_ignores_are_reported() {
    let err = refresh(
        &mut AnySpi,
        AnyPin,
        FailsOnce { failed: false },
        AnyPin,
        &mut NoopDelay::new(),
        &Frame::blank(),
    )
    .expect_err("DC failed");
    assert!(matches!(err, DeviceError::Gpio { pin: "DC", .. }), "{err}");
}

#[test]
fn a_mock_pin_error_on_busy_is_reported_too() {
    let busy_tx = [
        PinTx::get(State::High).with_error(MockError::Io(std::io::ErrorKind::Other)),
        PinTx::get(State::High),
        PinTx::get(State::High),
        PinTx::get(State::High),
        PinTx::get(State::High),
    ];
    let mut busy = PinMock::new(&busy_tx);
    let err = refresh(
        &mut AnySpi,
        busy.clone(),
        AnyPin,
        AnyPin,
        &mut NoopDelay::new(),
        &Frame::blank(),
    )
    .expect_err("BUSY failed");
    assert!(
        matches!(err, DeviceError::Gpio { pin: "BUSY", .. }),
        "{err}"
    );
    busy.done();
}
