// kafkajs producing to the suite's cluster while its leaders move, logging
// with kafkajs's own default logger (JSON lines on stdout/stderr). Runs
// until stdin closes, then waits for every send and exits 1 if one failed.
const { Kafka, logLevel } = require('kafkajs')

const brokers = process.env.BROKERS.split(',')
const partitions = Number(process.env.PARTITIONS)
const kafka = new Kafka({
  clientId: process.env.CLIENT_ID,
  brokers,
  logLevel: process.env.LOG_LEVEL === 'debug' ? logLevel.DEBUG : logLevel.INFO,
  retry: { retries: 1000, initialRetryTime: 50, maxRetryTime: 200 },
})
const producer = kafka.producer({ allowAutoTopicCreation: false })

async function main () {
  await producer.connect()
  let failed = null
  const pending = new Set()
  let i = 0
  const timer = setInterval(() => {
    const n = i++
    const p = producer.send({ topic: 'orders', acks: -1, messages: [{ partition: n % partitions, value: String(n) }] })
      .catch(e => { failed = e })
      .finally(() => pending.delete(p))
    pending.add(p)
  }, 4)
  await new Promise(resolve => {
    process.stdin.on('end', resolve)
    process.stdin.resume()
  })
  clearInterval(timer)
  await Promise.all([...pending])
  await producer.disconnect()
  if (failed) {
    process.stdout.write('failed: ' + failed + '\n')
    process.exit(1)
  }
}

main().catch(e => { process.stdout.write('error: ' + e + '\n'); process.exit(1) })
